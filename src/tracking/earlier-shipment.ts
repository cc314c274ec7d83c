/**
 * A carrier's delivery dated before the order was placed is not this gift's: tracking numbers are
 * reused (USPS and FedEx recycle them after a while), and a mistyped number is often someone else's
 * old, delivered package. Taken at its word, it would send the video at once, before the gift has even
 * shipped (a probe: "delivered 2020-01-01" on a number just set delivered the order). Pure: the
 * poller applies it to every answer, polled or pushed, before anything is recorded.
 *
 * Such an answer is read as "this order's package is not known to the carrier yet": the number keeps
 * being looked at (a reused number's new label appears in time, and `currentShipment` then prefers it),
 * the merchant reads why on the timeline, and a number that never shows a new shipment expires like any
 * unknown number, with its visible reason. Shopify's own "delivered" and a client's `delivered: 1`
 * are about this order and are not judged here.
 */
import type { TrackingResult } from '../carriers/clients/types.ts';

/**
 * How much earlier than the order a delivery may be dated and still be taken as its own: a carrier's
 * times can be read in the wrong zone (some give local times without an offset) and clocks differ, so
 * only a delivery a whole day before the order is certainly an earlier shipment's.
 */
export const EARLIER_SHIPMENT_MARGIN_MS = 24 * 60 * 60 * 1000;

/** True when the answer reports a delivery dated a whole day or more before the order was placed. */
export function isEarlierShipment(result: TrackingResult, orderPlacedAt: Date | null): boolean {
  return (
    result.status === 'delivered' &&
    result.deliveredAt !== null &&
    orderPlacedAt !== null &&
    result.deliveredAt.getTime() < orderPlacedAt.getTime() - EARLIER_SHIPMENT_MARGIN_MS
  );
}

/** The answer as this order's package stands: unchanged, or not found yet when it is an earlier shipment's. */
export function asThisOrdersPackage(result: TrackingResult, orderPlacedAt: Date | null): TrackingResult {
  if (!isEarlierShipment(result, orderPlacedAt)) return result;
  const day = result.deliveredAt!.toISOString().slice(0, 10);
  return {
    ...result,
    status: 'not_found',
    deliveredAt: null,
    estimatedDeliveryAt: null,
    estimatedWindowStartAt: null,
    lastEventAt: null,
    description:
      `The carrier's only delivery under this number is dated ${day}, before this order was placed: ` +
      `an earlier shipment's, so the video is not sent. Waiting for this order's package to be scanned; ` +
      `check the tracking number if it does not appear.`,
  };
}
