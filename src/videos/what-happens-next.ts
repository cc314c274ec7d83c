import type { OrderRow } from '../orders/serializer.ts';

/** The carrier's estimate for the order's package, with the destination's time zone when known. */
export interface DeliveryEstimate {
  at: Date;
  timeZone: string | null;
}

/**
 * The record page's promise to the sender, in one sentence: who gets the video, and when — "Grandpa
 * Joe gets your video when the package arrives, about Nov 26." Pure: the order, the carrier's
 * estimate (if any) and nothing else. The estimate's date is the destination's calendar day when its
 * zone is known (a 23:59 estimate in California is not "tomorrow" in UTC), else UTC's, as `send_on` is.
 */
/**
 * Whether the sentence needs the carrier's estimate: a package not yet delivered, on a record page that
 * still takes a video (a cancelled or sent order's page says something else).
 */
export function needsDeliveryEstimate(
  order: Pick<OrderRow, 'send_trigger' | 'delivered' | 'status' | 'sent_at'>,
): boolean {
  return order.send_trigger === 'package' && !order.delivered && order.status !== 'cancelled' && order.sent_at === null;
}

export function whatHappensNext(
  order: Pick<OrderRow, 'recipient_name' | 'send_trigger' | 'send_on' | 'delivered'>,
  estimate: DeliveryEstimate | null,
): string {
  const who = order.recipient_name;
  switch (order.send_trigger) {
    case 'now':
      return `${who} gets your video as soon as you send it.`;
    case 'date':
      return order.send_on
        ? `${who} gets your video on ${dayText(order.send_on, null)}.`
        : `${who} gets your video on the day the store set.`;
    case 'package':
      if (order.delivered) return `The gift has arrived: ${who} gets your video as soon as you send it.`;
      return estimate
        ? `${who} gets your video when the package arrives, about ${dayText(estimate.at, estimate.timeZone)}.`
        : `${who} gets your video when the package arrives.`;
  }
}

function dayText(at: Date, timeZone: string | null): string {
  return new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: timeZone ?? 'UTC' }).format(at);
}
