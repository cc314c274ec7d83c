import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { Db } from '../db/database.ts';
import type { TrackingsTable } from '../db/schema.ts';
import type { CarrierLook, OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderRow } from '../orders/serializer.ts';
import { recordTimeline } from '../orders/timeline.ts';
import { utcOffsetMinutesAt } from '../i18n/dates.ts';
import { newTrackingState, nextPoll, type ScheduleOptions, type TrackingState } from './schedule.ts';
import type { TrackingStopReason } from '../vocabulary.ts';

export type TrackingRow = Selectable<TrackingsTable>;

/**
 * The schedule's view of a stored row, at `at`: the destination's offset is taken at that instant, so
 * a decision made across a daylight-saving change uses the hours of the day it is about.
 */
export function trackingState(row: TrackingRow, at: Date): TrackingState {
  const utcOffsetMinutes =
    row.destination_time_zone === null ? undefined : utcOffsetMinutesAt(row.destination_time_zone, at);
  return {
    status: row.status,
    startedAt: row.started_at,
    lastPolledAt: row.last_polled_at,
    lastChangedAt: row.last_changed_at,
    // The carrier's estimate wins; Shopify's fills in while the carrier gives none (docs/tracking.md "Free signals").
    estimatedDeliveryAt: row.estimated_delivery_at ?? row.observed_estimated_delivery_at,
    estimatedWindowStartAt: row.estimated_window_start_at,
    consecutiveErrors: row.consecutive_errors,
    rateLimitedUntil: row.rate_limited_until,
    ...(utcOffsetMinutes === undefined ? {} : { utcOffsetMinutes }),
  };
}

/**
 * Keeps the tracking table in step with orders: a new shipment starts (or restarts) tracking;
 * clearing it, delivery, cancellation, deletion or erasure stops it. Tracking's only way in from an
 * order change.
 */
export function trackingSubscriber(options: {
  now: () => Date;
  schedules: Record<CarrierCode, ScheduleOptions>;
}): OrderEventSubscriber {
  return {
    name: 'tracking',
    events: [
      'order.shipment_set',
      'order.shipment_cleared',
      'order.delivered',
      'order.cancelled',
      'order.deleted',
      'order.erased',
    ],
    async handle(trx, order, { event }) {
      const now = options.now();
      switch (event.type) {
        case 'order.shipment_set': {
          // A later change already moved on (another number, delivered, stopped): its own event follows.
          const current = order.carrier === event.carrier && order.tracking_number === event.tracking_number;
          if (current && !order.delivered && order.status !== 'cancelled' && order.deleted_at === null)
            await startTracking(
              trx,
              order,
              { carrier: event.carrier, trackingNumber: event.tracking_number, firstLook: event.first_look ?? null },
              now,
              options.schedules[event.carrier],
            );
          return;
        }
        case 'order.shipment_cleared':
          return stopTracking(trx, order.id, 'shipment_cleared', now);
        case 'order.delivered':
          return stopTracking(trx, order.id, 'order_delivered', now);
        case 'order.cancelled':
          return stopTracking(trx, order.id, 'order_cancelled', now);
        case 'order.deleted':
          return stopTracking(trx, order.id, 'order_deleted', now);
        case 'order.erased':
          return stopTracking(trx, order.id, 'order_erased', now);
        default:
          return;
      }
    },
  };
}

/**
 * The validation's answer as the package's first poll: the state the schedule starts from, or null
 * when it cannot stand in for one — a package already delivered or on its way back is handed to the
 * poller at once, which delivers (or stops) the order as a poll would.
 */
export function firstLookState(look: CarrierLook, startedAt: Date): TrackingState | null {
  if (look.status === 'delivered' || look.status === 'return_to_sender') return null;
  const at = new Date(look.at);
  const date = (iso: string | null) => (iso === null ? null : new Date(iso));
  const timeZone = look.destination_time_zone ?? null;
  const utcOffsetMinutes = timeZone === null ? undefined : utcOffsetMinutesAt(timeZone, startedAt);
  return {
    ...newTrackingState(startedAt, utcOffsetMinutes),
    status: look.status,
    lastPolledAt: at,
    // Everything the carrier said is news: nothing was known before.
    lastChangedAt: at,
    estimatedDeliveryAt: date(look.estimated_delivery_at),
    estimatedWindowStartAt: date(look.estimated_window_start_at),
  };
}

async function startTracking(
  trx: Db,
  order: OrderRow,
  shipment: { carrier: CarrierCode; trackingNumber: string; firstLook: CarrierLook | null },
  now: Date,
  schedule: ScheduleOptions,
): Promise<void> {
  const look = shipment.firstLook;
  const timeZone = look?.destination_time_zone ?? null;
  const { seen, nextPollAt } = firstSchedule(look, now, schedule);
  const row = {
    order_id: order.id,
    account_id: order.account_id,
    carrier: shipment.carrier,
    tracking_number: shipment.trackingNumber,
    status: seen && look ? look.status : null,
    description: seen && look ? look.description : null,
    started_at: now,
    // An earlier shipment's delivery under this number is told from this gift's by it (earlier-shipment.ts).
    order_placed_at: order.created_at,
    last_polled_at: seen?.lastPolledAt ?? null,
    last_changed_at: seen?.lastChangedAt ?? null,
    last_event_at: seen && look?.last_event_at ? new Date(look.last_event_at) : null,
    delivered_at: null,
    estimated_delivery_at: seen?.estimatedDeliveryAt ?? null,
    estimated_window_start_at: seen?.estimatedWindowStartAt ?? null,
    // A new number's estimate is its carrier's, or a free signal about that number (observations.ts).
    observed_estimated_delivery_at: null,
    consecutive_errors: 0,
    rate_limited_until: null,
    rate_limited_since: null,
    rate_limit_told_at: null,
    poll_count: seen ? 1 : 0,
    next_poll_at: nextPollAt,
    stopped_reason: null,
    lease_token: null,
    lease_until: null,
    updated_at: now,
    // A new number needs its own push subscription (push-subscriptions.ts).
    push_subscribed_at: null,
    push_until: null,
    push_renew_at: null,
    last_pushed_at: null,
    push_job_id: null,
    push_job_at: null,
  };
  await trx
    .insertInto('trackings')
    .values({ ...row, destination_time_zone: timeZone })
    // A new number for the same order usually goes to the same door: a zone learned before is kept
    // unless the carrier's first look names another.
    .onConflict((oc) => oc.column('order_id').doUpdateSet({ ...row, ...zoneIfKnown(timeZone) }))
    .execute();
  // The merchant sees the carrier's first word on the timeline, as a poll would have written it.
  if (seen && look)
    await recordTimeline(
      trx,
      order,
      'carrier',
      [
        {
          type: 'tracking.status',
          data: {
            carrier: shipment.carrier,
            status: look.status,
            description: look.description,
            at: look.last_event_at ?? look.at,
          },
        },
      ],
      now,
    );
}

function zoneIfKnown(timeZone: string | null): { destination_time_zone?: string } {
  return timeZone === null ? {} : { destination_time_zone: timeZone };
}

/**
 * A new number's first state (firstLookState) and when it is first polled, from the validation's look
 * (null: none was taken). A look that says "delivered" (or "returned") is not a schedule: the poller
 * looks at once and delivers (or stops) the order — not at the grid's first look, which a probe saw
 * hold a delivery back 18 min.
 */
export function firstSchedule(
  look: CarrierLook | null,
  now: Date,
  schedule: ScheduleOptions,
): { seen: TrackingState | null; nextPollAt: Date | null } {
  const seen = look ? firstLookState(look, now) : null;
  if (look && !seen) return { seen, nextPollAt: now };
  const decision = nextPoll(seen ?? newTrackingState(now), now, schedule);
  return { seen, nextPollAt: decision.kind === 'poll' ? decision.at : seen ? now : null };
}

export async function stopTracking(db: Db, orderId: string, reason: TrackingStopReason, now: Date): Promise<void> {
  await db
    .updateTable('trackings')
    .set({ next_poll_at: null, stopped_reason: reason, lease_token: null, lease_until: null, updated_at: now })
    .where('order_id', '=', orderId)
    .where('next_poll_at', 'is not', null)
    .execute();
}

/**
 * Claims up to `limit` due packages of one carrier for one batch job. SKIP LOCKED lets any number
 * of claimers run at once without waiting on or double-claiming each other's rows; the lease makes a
 * claim whose job was lost (Redis restart, crash) due again once it lapses.
 */
export async function claimDueTrackings(
  db: Db,
  carrier: CarrierCode,
  limit: number,
  now: Date,
  leaseMs: number,
): Promise<{ token: string; rows: TrackingRow[] }> {
  const token = randomUUID();
  const result = await claimDueTrackingsQuery(carrier, limit, now, new Date(now.getTime() + leaseMs), token).execute(
    db,
  );
  return { token, rows: result.rows };
}

/** Claims older than `minAgeMs` still holding packages, per carrier: the reconciler checks their jobs exist. */
export async function openClaims(
  db: Db,
  now: Date,
  leaseMs: number,
  minAgeMs: number,
): Promise<Array<{ carrier: CarrierCode; token: string }>> {
  const rows = await openClaimsQuery(db, now, new Date(now.getTime() + leaseMs - minAgeMs)).execute();
  return rows.map((row) => ({ carrier: row.carrier, token: row.lease_token! }));
}

/** Gives a claim's packages back (its job was lost): they are due again at once. */
export async function releaseClaim(db: Db, token: string): Promise<number> {
  const result = await releaseClaimQuery(db, token).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The packages a batch job still owns: those claimed with its token and still tracked (in one fixed order, so a retried call asks the carrier the same question). */
export async function leasedTrackings(db: Db, token: string): Promise<TrackingRow[]> {
  return leasedTrackingsQuery(db, token).execute();
}

/*
 * The claim's queries, exported so that test/db/hot-query-plans.test.ts explains the text run here.
 */

export function claimDueTrackingsQuery(
  carrier: CarrierCode,
  limit: number,
  now: Date,
  leaseUntil: Date,
  token: string,
) {
  return sql<TrackingRow>`
    update trackings set lease_token = ${token}, lease_until = ${leaseUntil}
    where order_id in (
      select order_id from trackings
      where carrier = ${carrier} and next_poll_at is not null and next_poll_at <= ${now}
        and (lease_until is null or lease_until < ${now})
      order by next_poll_at, order_id
      limit ${limit}
      for update skip locked
    )
    returning *`;
}

export function openClaimsQuery(db: Db, now: Date, leasedBefore: Date) {
  return db
    .selectFrom('trackings')
    .select(['carrier', 'lease_token'])
    .distinct()
    .where('lease_token', 'is not', null)
    .where('lease_until', '>', now)
    .where('lease_until', '<', leasedBefore);
}

export function releaseClaimQuery(db: Db, token: string) {
  return db.updateTable('trackings').set({ lease_token: null, lease_until: null }).where('lease_token', '=', token);
}

export function leasedTrackingsQuery(db: Db, token: string) {
  return db
    .selectFrom('trackings')
    .selectAll()
    .where('lease_token', '=', token)
    .where('next_poll_at', 'is not', null)
    .orderBy('order_id');
}

/**
 * What the carrier last estimated for an order's package still being tracked, with the destination's
 * time zone when known; null without a live estimate. For pages that tell people when to expect it.
 */
export async function carrierEstimate(db: Db, orderId: string): Promise<{ at: Date; timeZone: string | null } | null> {
  const row = await db
    .selectFrom('trackings')
    .select(['estimated_delivery_at', 'destination_time_zone'])
    .where('order_id', '=', orderId)
    .where('next_poll_at', 'is not', null)
    .where('estimated_delivery_at', 'is not', null)
    .executeTakeFirst();
  return row?.estimated_delivery_at ? { at: row.estimated_delivery_at, timeZone: row.destination_time_zone } : null;
}
