import type { Updateable } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { OrdersTable } from '../db/schema.ts';
import { ConflictError, ValidationError, type FieldErrors } from '../errors.ts';
import type { Locale } from '../i18n/locale.ts';
import { defaultTitleIn, isDefaultTitle } from './default-title.ts';
import type { OrderUpdate } from './request-schemas.ts';
import type { TimelineEntry } from './timeline.ts';
import type { OrderRow } from './serializer.ts';
import { transition } from './state-machine.ts';

export type ShipmentChange = { kind: 'set'; carrier: CarrierCode; trackingNumber: string } | { kind: 'cleared' } | null;

export interface UpdatePlan {
  /** Columns to write; empty when the request changes nothing (then updated_at stays too). */
  changes: Updateable<OrdersTable>;
  /** What the change puts on the order's timeline. */
  events: TimelineEntry[];
  /** The customer detail fields whose value changes. */
  changedDetails: string[];
  shipment: ShipmentChange;
  deliveredNow: boolean;
}

const DETAIL_FIELDS = [
  'name',
  'email',
  'recipient_name',
  'recipient_email',
  'recipient_phone',
  'sender_phone',
  'send_method',
  'send_trigger',
  'send_on',
  'video_title',
  'price',
] as const;

/**
 * Decides what an update does to an order — pure, so every rule of spec §4 and docs/design.md §1 is
 * unit-tested without a database. Throws ConflictError / ValidationError for requests that must
 * change nothing.
 */
export function planUpdate(
  order: OrderRow,
  update: OrderUpdate,
  now: Date,
  /** The store's language, for the default title a corrected name gives; without it no retitling. */
  titleLanguage?: Locale,
): UpdatePlan {
  const { status } = order;
  if (status === 'cancelled' && Object.keys(update).length > 0) {
    throw new ConflictError('The order is cancelled and can no longer be changed.');
  }

  const changes: Updateable<OrdersTable> = {};
  const events: TimelineEntry[] = [];

  const changedDetails: string[] = [];
  for (const field of DETAIL_FIELDS) {
    const value = update[field];
    if (value === undefined || sameValue(order[field], value)) continue;
    (changes as Record<string, unknown>)[field] = value;
    changedDetails.push(field);
  }

  // A title nobody gave follows the sender's name: a corrected name is not left in the title the
  // recipient reads (recipient probe: "A video message from Jhon" after the name was fixed). The old
  // title may be in a language the store has since left (isDefaultTitle); the new one is in today's.
  if (
    changedDetails.includes('name') &&
    update.video_title === undefined &&
    titleLanguage !== undefined &&
    isDefaultTitle(order.video_title, order.name)
  ) {
    changes.video_title = defaultTitleIn(titleLanguage, update.name!);
    changedDetails.push('video_title');
  }

  // The price of a sent video is on the statement of the month it was sent in: it may be set or
  // corrected while that month runs, never once its statement is closed (billing probe: a price set to
  // 0 in December rewrote October's closed bill).
  if (changedDetails.includes('price') && order.sent_at !== null && now >= statementClosesAt(order.sent_at)) {
    throw new ConflictError(
      `The video was sent in ${order.sent_at.toISOString().slice(0, 7)}, whose billing statement is closed: its price can no longer change.`,
    );
  }

  // send_on is "null when sending is not scheduled" (spec §3): a trigger that leaves "date" takes the
  // date with it, unless the same request sends one (then the check below refuses the pair).
  if (
    update.send_trigger !== undefined &&
    update.send_trigger !== 'date' &&
    update.send_on === undefined &&
    order.send_on !== null
  ) {
    changes.send_on = null;
    changedDetails.push('send_on');
  }

  const shipment = planShipment(order, update);
  if (shipment?.kind === 'set') {
    changes.carrier = shipment.carrier;
    changes.tracking_number = shipment.trackingNumber;
    events.push({
      type: 'shipment.set',
      data: { carrier: shipment.carrier, tracking_number: shipment.trackingNumber },
    });
  } else if (shipment?.kind === 'cleared') {
    changes.carrier = null;
    changes.tracking_number = null;
    events.push({ type: 'shipment.cleared', data: {} });
  }

  let deliveredNow = false;
  if (update.delivered !== undefined) {
    const outcome = transition({ status, sent: order.sent_at !== null }, 'delivered');
    if (outcome.kind === 'rejected') throw new ConflictError(outcome.reason);
    if (outcome.kind === 'moved') {
      deliveredNow = true;
      changes.status = outcome.next;
      changes.delivered = true;
      changes.delivered_at = now;
      events.push({ type: 'order.delivered', data: { delivered_at: now.toISOString(), signal: 'delivered_flag' } });
    }
  }

  if (changedDetails.length > 0) {
    const data: Record<string, unknown> = { fields: changedDetails };
    if (changedDetails.includes('price')) data.price = { from: order.price, to: update.price };
    events.unshift({ type: 'order.updated', data });
  }

  // An order still waiting for its recipient (a Shopify line item that came without one) stays
  // editable; an update may not take away the last way to reach a recipient.
  const problems = consistencyProblems({ ...order, ...changes } as OrderRow, {
    recipientRequired: order.recipient_email !== null || order.recipient_phone !== null,
  });
  if (Object.keys(problems).length > 0)
    throw new ValidationError('The update would leave the order unable to send.', problems);

  if (Object.keys(changes).length > 0) changes.updated_at = now;
  return { changes, events, changedDetails, shipment, deliveredNow };
}

const CLEAR_BOTH = 'send carrier and tracking_number both null to clear the shipment';

/**
 * Carrier and tracking number travel together (docs/design.md §1): either may be sent alone when the
 * other is already stored; after the update both are set or both are null.
 */
function planShipment(order: OrderRow, update: OrderUpdate): ShipmentChange {
  if (update.carrier === undefined && update.tracking_number === undefined) return null;

  const carrier = update.carrier === undefined ? order.carrier : update.carrier;
  const trackingNumber = update.tracking_number === undefined ? order.tracking_number : update.tracking_number;

  if (carrier === null && trackingNumber === null) {
    if (order.carrier === null) return null;
    if (order.delivered)
      throw new ConflictError('The order is already delivered; its shipment can no longer be changed.');
    return { kind: 'cleared' };
  }
  if (carrier === null || trackingNumber === null) {
    // A null sent alone while the other is stored is a client clearing the shipment by half: say how
    // to clear it, not that the null field is required (shipment probe).
    const clearingHalf =
      (update.carrier === null && update.tracking_number === undefined) ||
      (update.tracking_number === null && update.carrier === undefined);
    const fields: FieldErrors = clearingHalf
      ? { [carrier === null ? 'carrier' : 'tracking_number']: CLEAR_BOTH }
      : carrier === null
        ? { carrier: 'is required with tracking_number (one of ups, fedex, usps)' }
        : { tracking_number: 'is required with carrier' };
    throw new ValidationError('carrier and tracking_number must be set together.', fields);
  }
  if (carrier === order.carrier && trackingNumber === order.tracking_number) return null;
  if (order.delivered)
    throw new ConflictError('The order is already delivered; its shipment can no longer be changed.');
  return { kind: 'set', carrier, trackingNumber };
}

/**
 * What would stop an order from ever being sent, as field errors. Checked after every create and
 * update so no request can leave an order that silently never sends. The one order allowed without
 * a recipient is a Shopify line item that came without one: it waits visibly (timeline
 * `order.needs_recipient`) until the sender supplies one on the record page.
 */
export function consistencyProblems(
  order: Pick<OrderRow, 'recipient_email' | 'recipient_phone' | 'send_method' | 'send_trigger' | 'send_on'>,
  options: { recipientRequired: boolean } = { recipientRequired: true },
): FieldErrors {
  const problems: FieldErrors = {};
  if (options.recipientRequired && order.recipient_email === null && order.recipient_phone === null) {
    problems.recipient_email = 'recipient_email or recipient_phone is required';
  }
  if (
    (order.send_method === 'email' || order.send_method === 'email_and_sms') &&
    order.recipient_email === null &&
    order.recipient_phone !== null
  ) {
    problems.send_method = `"${order.send_method}" needs recipient_email`;
  }
  if (
    (order.send_method === 'sms' || order.send_method === 'email_and_sms') &&
    order.recipient_phone === null &&
    order.recipient_email !== null
  ) {
    problems.send_method = `"${order.send_method}" needs recipient_phone`;
  }
  if (order.send_trigger === 'date' && order.send_on === null) {
    problems.send_on = 'is required when send_trigger is "date"';
  }
  if (order.send_trigger !== 'date' && order.send_on !== null) {
    problems.send_on = `is only used when send_trigger is "date" (it is "${order.send_trigger}"): send both, or send_on null`;
  }
  return problems;
}

function sameValue(current: unknown, next: unknown): boolean {
  if (current instanceof Date && next instanceof Date) return current.getTime() === next.getTime();
  return current === next;
}

/** When the statement of the UTC month `sentAt` falls in closes: the first instant of the next month. */
function statementClosesAt(sentAt: Date): Date {
  return new Date(Date.UTC(sentAt.getUTCFullYear(), sentAt.getUTCMonth() + 1, 1));
}
