import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { Db } from '../db/database.ts';
import type { Channel, EventSource, OrderEventType, ThanksReply, TrackingStatus } from '../vocabulary.ts';

export type { OrderEventType };
import type { OrderRow } from './serializer.ts';

/**
 * What happened to an order, for the modules that react to it (tracking, notifications, videos,
 * and later billing and metrics). `OrderService` writes these to the outbox in the same transaction
 * as the change itself; they are the one way a change reaches another module.
 *
 * They say what changed, not what to do: each subscriber decides from the event and the order as it
 * is when the subscriber runs. The timeline (`./timeline.ts`) is the separate, human-facing record.
 */
export type OrderEvent =
  | { type: 'order.created' }
  /** Customer details changed (recipient, send method, trigger or date, title, price…). */
  | { type: 'order.updated'; fields: string[] }
  | {
      type: 'order.shipment_set';
      carrier: CarrierCode;
      tracking_number: string;
      /** What the carrier answered when the number was validated, if it answered: tracking's first look. */
      first_look?: CarrierLook;
    }
  | { type: 'order.shipment_cleared' }
  | { type: 'order.delivered'; delivered_at: string }
  /** The video was processed (also after delivery: the video can then go out). */
  | { type: 'order.recorded' }
  /** A provider accepted the recipient's video on one channel. */
  | { type: 'order.sent'; send_id: string; channel: Channel; provider_message_id: string; sent_at: string }
  /** The recipient played the video for the first time after it was sent. */
  | { type: 'order.viewed' }
  /** The recipient recorded (or replaced) a thank-you reply: the sender's e-mail can go out. */
  | { type: 'order.thanked'; reply: ThanksReply }
  | { type: 'order.cancelled' }
  | { type: 'order.deleted' }
  /** Personal data erased (privacy request): what other modules keep about the people goes too. */
  | { type: 'order.erased' };

/**
 * One answer of the carrier about one package, as an event carries it (JSON: times are ISO strings).
 * The validation of a new number asks the carrier anyway; handing its answer to tracking as the
 * first poll result saves a second call moments later and lets the schedule start from what the
 * carrier said.
 */
export interface CarrierLook {
  /** When the carrier was asked. */
  at: string;
  status: TrackingStatus;
  description: string | null;
  delivered_at: string | null;
  estimated_delivery_at: string | null;
  estimated_window_start_at: string | null;
  last_event_at: string | null;
  /**
   * The destination's IANA time zone, from the address parts the carrier gave (never the address
   * itself: the event is stored); null when it did not say, absent in older events.
   */
  destination_time_zone?: string | null;
}

// Every listed type has a payload above and every payload is listed: a mismatch is a type error.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const everyEventTyped: Same<OrderEvent['type'], OrderEventType> = true;
void everyEventTyped;

/** The three ways an order stops for good: nothing may track or send for it afterwards. */
export const STOPPING_EVENTS = [
  'order.cancelled',
  'order.deleted',
  'order.erased',
] as const satisfies readonly OrderEventType[];

/** An event as a subscriber receives it. */
export interface DeliveredOrderEvent<E extends OrderEvent = OrderEvent> {
  /** Outbox position: a subscriber sees one order's events in this order. 0 for an inline event (no row). */
  seq: number;
  orderId: string;
  accountId: string;
  source: EventSource;
  at: Date;
  event: E;
}

/**
 * A module's reaction to order events. `handle` runs in its own transaction (`trx`, the only
 * connection it may use), which also removes the event from this subscriber's queue: what it writes
 * commits exactly when the event counts as handled. A throw rolls both back and the event is tried
 * again later, so a handler must be safe to run again after a failure.
 */
export interface OrderEventSubscriber {
  /** Stored with every pending event; never rename a subscriber that has shipped. */
  name: string;
  events: readonly OrderEventType[];
  /**
   * Narrower than `events`, for a subscriber that can tell from the event alone that it has nothing
   * to do (a price change means nothing to the send plan). Such an event is not written for it at
   * all, so the change commits once instead of twice. Must be pure: it runs inside the change.
   */
  wants?(event: OrderEvent): boolean;
  /**
   * Handled inside the change's own transaction instead of through an outbox row: the reaction
   * commits exactly when the order does, with no row to write, take and delete (issue 11: a
   * Shopify `orders/create` burst). Only an order's first event qualifies — nothing of the order can
   * wait before it, so the in-order promise holds — and the handler must be one the change may fail
   * with (it rolls the change back; only a database fault can make it throw).
   */
  inline?: ReadonlyArray<'order.created'>;
  /**
   * `order` is the order as it is now (orders are never removed, only soft-deleted); for an inline
   * event, the row the change has just written.
   */
  handle(trx: Db, order: OrderRow, delivered: DeliveredOrderEvent): Promise<void>;
  /**
   * Runs once `handle`'s transaction has committed, for work that must not start before others can
   * see it (asking a queue to act on what was just written). Must not throw, and must not matter if
   * it never runs (a crash right after the commit): the caller's own schedule is the safety net.
   */
  afterCommit?(delivered: DeliveredOrderEvent): void;
}

/** Narrows a delivered event by type, for subscribers' switch statements. */
export function isEvent<T extends OrderEventType>(
  delivered: DeliveredOrderEvent,
  type: T,
): delivered is DeliveredOrderEvent<Extract<OrderEvent, { type: T }>> {
  return delivered.event.type === type;
}
