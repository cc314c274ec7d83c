import { asThisOrdersPackage } from './earlier-shipment.ts';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { CarrierBudget } from '../carriers/budget.ts';
import {
  CarrierAuthError,
  CarrierQuotaError,
  CarrierRateLimitedError,
  CarrierUnexpectedResponseError,
} from '../carriers/clients/errors.ts';
import type { CarrierClient, TrackingResult } from '../carriers/clients/types.ts';
import { carrierDisplayName } from '../carriers/tracking-number.ts';
import type { Db } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { recordTimeline, type TimelineEntry } from '../orders/timeline.ts';
import type { OrderService } from '../orders/service.ts';
import { withPush, type PushScheduleOptions, type PushState } from './push-schedule.ts';
import { destinationTimeZone } from './destination-time-zone.ts';
import type { LearnedHours } from './delivery-hours.ts';
import { DeliveryHoursCache, recordDeliveryTime, type DeliveryRound } from './delivery-hours-store.ts';
import type { TrackingObservation } from './observation.ts';
import { recordObservation, type ObservationOutcome } from './observations.ts';
import { nextPoll, type PollDecision, type ScheduleOptions, type TrackingState } from './schedule.ts';
import {
  claimDueTrackings,
  leasedTrackings,
  openClaims,
  releaseClaim,
  trackingState,
  type TrackingRow,
} from './trackings.ts';

export interface TrackingPollerDeps {
  db: Db;
  orders: OrderService;
  clients: Record<CarrierCode, CarrierClient>;
  /** Per carrier: sandboxed carriers use the demo profile so a person can watch a delivery. */
  schedules: Record<CarrierCode, ScheduleOptions>;
  logger: Logger;
  now?: () => Date;
  /** The confirmation cadence while a push subscription is live (push-schedule.ts); default PUSH_SCHEDULE. */
  pushSchedule?: PushScheduleOptions;
  /** The fleet's learned delivery hours (delivery-hours-store.ts); default a cache over `db`. */
  deliveryHours?: Pick<DeliveryHoursCache, 'get'>;
  /** Whether a delivery of the package delivers its order (DeliveryGate); absent, every one does. */
  deliversOrder?: DeliveryGate;
}

/**
 * Whether the carrier's delivery of `trackingNumber` delivers the order. An order tracks one package
 * at a time; a gift shipped in several boxes (a Shopify order split across fulfillments) is delivered
 * by its last box only: its owner counts the box as arrived, moves the order's tracking to the next
 * box, and answers false (src/shopify/orders/order-sync.ts, `carrierDelivered`).
 */
export type DeliveryGate = (orderId: string, trackingNumber: string) => Promise<boolean>;

export interface BatchOutcome {
  polled: number;
  delivered: number;
  /** Set when the carrier answered 429 or our budget for it was spent: how long the packages wait. */
  rateLimitedMs: number | null;
}

/** Long enough for a batch job to wait its turn in the carrier's queue and run. */
export const CLAIM_LEASE_MS = 10 * 60_000;
/**
 * How many batches one claim may hand to a carrier's queue: no more than its budget lets run
 * within the lease (USPS: 60 calls/h × 10 min = 10), or most would only be refused by the budget
 * and rescheduled. At most 200.
 */
export function batchesWithinLease(budget: CarrierBudget): number {
  return Math.max(1, Math.min(200, Math.floor((budget.max * CLAIM_LEASE_MS) / budget.durationMs)));
}

/** What a 429 without Retry-After (or a budget we could not check) makes us wait. */
const DEFAULT_RATE_LIMIT_MS = 60_000;

/**
 * Asks carriers about due packages and applies what they say. Knows nothing of queues: the jobs in
 * jobs/ decide when to call `claim` and `pollBatch` (docs/style.md: workers are adapters).
 */
export class TrackingPoller {
  private readonly now: () => Date;
  private readonly deliveryHours: Pick<DeliveryHoursCache, 'get'>;

  constructor(private readonly deps: TrackingPollerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.deliveryHours = deps.deliveryHours ?? new DeliveryHoursCache(deps.db);
  }

  /** Claims due packages of a carrier, in batches the carrier's API accepts in one call. */
  async claim(carrier: CarrierCode, maxBatches: number): Promise<Array<{ token: string; count: number }>> {
    const batchSize = this.deps.clients[carrier].maxBatchSize;
    const claims: Array<{ token: string; count: number }> = [];
    for (let i = 0; i < maxBatches; i++) {
      const { token, rows } = await claimDueTrackings(this.deps.db, carrier, batchSize, this.now(), CLAIM_LEASE_MS);
      if (rows.length === 0) break;
      claims.push({ token, count: rows.length });
      if (rows.length < batchSize) break;
    }
    return claims;
  }

  /**
   * Reconciler step: claims whose poll job was lost (Redis restarted empty) would hold their
   * packages until the lease lapses (10 min); they are given back as soon as the job is seen gone.
   */
  async reconcile(pollJobExists: (carrier: CarrierCode, claimToken: string) => Promise<boolean>): Promise<void> {
    for (const claim of await openClaims(this.deps.db, this.now(), CLAIM_LEASE_MS, 30_000)) {
      if (await pollJobExists(claim.carrier, claim.token)) continue;
      const released = await releaseClaim(this.deps.db, claim.token);
      this.deps.logger.warn(
        { carrier: claim.carrier, packages: released },
        'released packages whose poll job was lost',
      );
    }
  }

  /** One carrier API call for the packages a claim holds, and everything that follows from it. */
  async pollBatch(carrier: CarrierCode, token: string): Promise<BatchOutcome> {
    const rows = await leasedTrackings(this.deps.db, token);
    if (rows.length === 0) return { polled: 0, delivered: 0, rateLimitedMs: null };
    const client = this.deps.clients[carrier];
    let results: TrackingResult[];
    try {
      results = await client.track(rows.map((row) => row.tracking_number));
    } catch (error) {
      return this.recordFailure(rows, error);
    }
    let delivered = 0;
    const unanswered: TrackingRow[] = [];
    for (const [index, row] of rows.entries()) {
      const result = results[index];
      if (!result || saysNothingAbout(row, result)) unanswered.push(row);
      else if (await this.applyResult(row, result)) delivered++;
    }
    if (unanswered.length > 0)
      await this.recordFailure(
        unanswered,
        new CarrierUnexpectedResponseError(
          carrier,
          `${carrierDisplayName(carrier)} answered nothing usable about the number`,
        ),
      );
    return { polled: rows.length - unanswered.length, delivered, rateLimitedMs: null };
  }

  /**
   * A carrier's pushed event (src/tracking/push-events.ts), recorded exactly as a poll's answer is:
   * the same row update, timeline entry and delivery. Applies to every tracked package under the number.
   */
  async applyPushed(carrier: CarrierCode, result: TrackingResult): Promise<'applied' | 'stale' | 'untracked'> {
    const rows = await this.deps.db
      .selectFrom('trackings')
      .selectAll()
      .where('carrier', '=', carrier)
      .where('tracking_number', '=', result.trackingNumber)
      .where('next_poll_at', 'is not', null)
      .orderBy('order_id')
      .execute();
    if (rows.length === 0) return 'untracked';
    let outcome: 'applied' | 'stale' | 'untracked' = 'stale';
    for (const row of rows) {
      // Pushes may arrive out of order: an older scan than one we know says nothing new (a delivery always counts).
      const older =
        result.status !== 'delivered' &&
        row.last_event_at !== null &&
        result.lastEventAt !== null &&
        result.lastEventAt.getTime() < row.last_event_at.getTime();
      if (older) continue;
      await this.applyResult(row, result, 'push');
      outcome = 'applied';
    }
    return outcome;
  }

  /**
   * A free observation about an order's package (Shopify's fulfillment events; observation.ts,
   * observations.ts): recorded without a carrier call, and the next poll is the one the schedule wants
   * now — out for delivery brings it forward to the dense cadence. Only when the package tracked is one
   * of `trackingNumbers`.
   */
  async observe(
    orderId: string,
    trackingNumbers: readonly string[],
    observation: TrackingObservation,
  ): Promise<ObservationOutcome> {
    const now = this.now();
    return recordObservation(this.deps.db, orderId, trackingNumbers, observation, now, async (carrier) => {
      const hours = await this.deliveryHours.get(carrier, now);
      return (state, push) => this.decide(state, now, carrier, push, hours);
    });
  }

  /** Returns true when the result delivered the order. */
  private async applyResult(
    row: TrackingRow,
    answer: TrackingResult,
    source: 'poll' | 'push' = 'poll',
  ): Promise<boolean> {
    const now = this.now();
    // An earlier shipment's delivery under this number is not this gift's (earlier-shipment.ts).
    const result = asThisOrdersPackage(answer, row.order_placed_at);
    const changed =
      result.status !== row.status ||
      !sameTime(result.estimatedDeliveryAt, row.estimated_delivery_at) ||
      !sameTime(result.lastEventAt, row.last_event_at);
    // The carrier's destination decides the hours from now on; a response without one keeps what we knew.
    const destinationTimeZoneNow =
      (result.destination ? destinationTimeZone(result.destination) : null) ?? row.destination_time_zone;
    const state = {
      ...trackingState({ ...row, destination_time_zone: destinationTimeZoneNow }, now),
      status: result.status,
      lastPolledAt: source === 'poll' ? now : row.last_polled_at,
      lastChangedAt: changed ? now : row.last_changed_at,
      // A carrier without an estimate leaves Shopify's in place (docs/tracking.md "Free signals").
      estimatedDeliveryAt: result.estimatedDeliveryAt ?? row.observed_estimated_delivery_at,
      estimatedWindowStartAt: result.estimatedWindowStartAt ?? null,
      consecutiveErrors: 0,
      rateLimitedUntil: null,
    };
    const lastPushedAt = source === 'push' ? now : row.last_pushed_at;
    const isDelivered = result.status === 'delivered';
    const decision = this.decide(
      state,
      now,
      row.carrier,
      pushStateOf(row, result.status, lastPushedAt, state.lastPolledAt),
      await this.deliveryHours.get(row.carrier, now),
    );

    let learned: { round: DeliveryRound; at: Date; zone: string } | null = null;
    const applied = await this.deps.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('trackings')
        .selectAll()
        .where('order_id', '=', row.order_id)
        .forUpdate()
        .executeTakeFirst();
      // The shipment changed or tracking stopped while we were asking: this answer is stale. A push
      // holds no claim; it only needs the package to be the one still tracked.
      if (
        !current ||
        (source === 'poll' && current.lease_token !== row.lease_token) ||
        current.tracking_number !== row.tracking_number ||
        current.next_poll_at === null
      )
        return false;
      // A poll in flight (claimed) sets the next poll when it lands; a push must not release its claim.
      const schedule =
        source === 'poll'
          ? releaseWith(decision, now)
          : current.lease_token === null
            ? unclaimedWith(decision, now)
            : {};
      await trx
        .updateTable('trackings')
        .set({
          status: result.status,
          description: result.description,
          last_polled_at: state.lastPolledAt,
          last_changed_at: state.lastChangedAt,
          last_event_at: result.lastEventAt,
          delivered_at: result.deliveredAt,
          estimated_delivery_at: result.estimatedDeliveryAt,
          estimated_window_start_at: state.estimatedWindowStartAt,
          consecutive_errors: source === 'poll' ? 0 : current.consecutive_errors,
          rate_limited_until: source === 'poll' ? null : current.rate_limited_until,
          rate_limited_since: source === 'poll' ? null : current.rate_limited_since,
          rate_limit_told_at: source === 'poll' ? null : current.rate_limit_told_at,
          poll_count: source === 'poll' ? current.poll_count + 1 : current.poll_count,
          last_pushed_at: lastPushedAt,
          destination_time_zone: destinationTimeZoneNow,
          updated_at: now,
          ...schedule,
        })
        .where('order_id', '=', row.order_id)
        .execute();
      // The fleet learns its carriers' hours, in the destination's local time: delivery rounds from
      // deliveries seen after the out-for-delivery scan, pickup hours from collections. Counted after
      // this transaction commits (below), not inside it: every delivery in the same carrier slot adds to
      // one row, which inside the delivery's transaction would be locked until its commit and so
      // serialise a fleet's deliveries.
      if (isDelivered && result.deliveredAt && destinationTimeZoneNow)
        learned =
          current.status === 'out_for_delivery'
            ? { round: 'delivery', at: result.deliveredAt, zone: destinationTimeZoneNow }
            : current.status === 'available_for_pickup'
              ? { round: 'pickup', at: result.deliveredAt, zone: destinationTimeZoneNow }
              : null;
      const events: TimelineEntry[] = [];
      if (result.status !== current.status) {
        events.push({
          type: 'tracking.status',
          data: {
            carrier: row.carrier,
            status: result.status,
            description: result.description,
            // A scan dated ahead of now (a carrier's clock, a local time read at the wrong offset) is
            // said at now, as the delivery's time is (tracking probe: the timeline showed tomorrow).
            at: earliest(result.lastEventAt ?? now, now).toISOString(),
          },
        });
      }
      if (decision.kind === 'stop' && 'stopped_reason' in schedule) events.push(stopEvent(row, decision.reason));
      await recordTimeline(trx, { id: row.order_id, account_id: row.account_id }, 'carrier', events, now);
      return true;
    });
    if (!applied || !isDelivered) return false;
    if (this.deps.deliversOrder && !(await this.deps.deliversOrder(row.order_id, row.tracking_number))) {
      this.deps.logger.info(
        { orderId: row.order_id, carrier: row.carrier, via: source },
        'carrier delivered one box of a gift in several: the video waits for the rest',
      );
      return false;
    }

    let deliveredNow: boolean;
    try {
      ({ changed: deliveredNow } = await this.deps.orders.markDelivered(row.order_id, {
        at: result.deliveredAt ?? now,
        source: 'carrier',
        detail: { carrier: row.carrier, tracking_number: row.tracking_number },
        // Tracking follows the order through its events, a moment behind: the order decides
        // whether this package is still the one it ships with.
        shipment: { carrier: row.carrier, trackingNumber: row.tracking_number },
      }));
    } catch (error) {
      // Deleted meanwhile: nothing to deliver, and the batch's other packages must still be applied.
      if (error instanceof NotFoundError) return false;
      throw error;
    }
    this.deps.logger.info(
      { orderId: row.order_id, carrier: row.carrier, deliveredAt: result.deliveredAt, via: source },
      deliveredNow ? 'carrier reported delivery' : 'carrier delivery was already known',
    );
    // After the order: the gift's video is queued first, the statistic second.
    if (learned) await this.countDeliveryTime(row.carrier, learned);
    return deliveredNow;
  }

  /**
   * One more delivery (or collection) in its carrier's local slot. A statistic over thousands of
   * deliveries: one lost to a failed write (or a crash just before it) changes nothing, so a failure is
   * logged and the delivery goes on. It cannot count twice: only the transaction that moved the package
   * from out for delivery (or held) to delivered gets here, once.
   */
  private async countDeliveryTime(
    carrier: CarrierCode,
    learned: { round: DeliveryRound; at: Date; zone: string },
  ): Promise<void> {
    try {
      await recordDeliveryTime(this.deps.db, carrier, learned.round, learned.at, learned.zone);
    } catch (error) {
      this.deps.logger.warn({ err: error, carrier }, 'could not count a delivery in the learned delivery hours');
    }
  }

  /**
   * A package the carrier calls delivered keeps a near poll until the order's `order.delivered`
   * event stops its tracking: a crash, or a failing carrier, between the two can then never lose the
   * delivery.
   */
  private decide(
    state: TrackingState,
    now: Date,
    carrier: CarrierCode,
    push: PushState,
    hours: LearnedHours,
  ): PollDecision {
    if (state.status === 'delivered') return { kind: 'poll', at: new Date(now.getTime() + 60_000) };
    const schedule: ScheduleOptions = {
      ...this.deps.schedules[carrier],
      deliveryHours: hours.delivery,
      pickupHours: hours.pickup,
    };
    return withPush(nextPoll(state, now, schedule), push, now, this.deps.pushSchedule);
  }

  private async recordFailure(rows: TrackingRow[], error: unknown): Promise<BatchOutcome> {
    const now = this.now();
    const rateLimited = error instanceof CarrierRateLimitedError;
    const rateLimitedMs = rateLimited ? (error.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS) : null;
    if (error instanceof CarrierQuotaError) {
      // Not the carrier's doing: our own budget held the call back, the carrier was not asked.
      this.deps.logger.info(
        { carrier: rows[0]?.carrier, packages: rows.length, reason: error.reason, retryInMs: rateLimitedMs },
        'our carrier budget held the call back; packages wait for it',
      );
    } else if (error instanceof CarrierAuthError) {
      // Not the carrier's outage: ours to fix, so it is an error for the operator, not a warning.
      this.deps.logger.error(
        { carrier: rows[0]?.carrier, packages: rows.length, status: error.status },
        'the carrier refused our credentials: check its client id and secret settings',
      );
    } else {
      this.deps.logger.warn(
        { carrier: rows[0]?.carrier, packages: rows.length, err: error },
        rateLimited ? 'carrier rate limited us' : 'carrier call failed',
      );
    }
    for (const row of rows) {
      // How long rate limits (the carrier's 429, or our budget for it, which keeps its waits) have held it.
      const waitingSince = rateLimited ? (row.rate_limited_since ?? now) : row.rate_limited_since;
      const tellLongWait =
        rateLimited &&
        row.rate_limit_told_at === null &&
        now.getTime() - waitingSince!.getTime() >= LONG_CARRIER_WAIT_MS;
      const state = {
        ...trackingState(row, now),
        consecutiveErrors: rateLimited ? row.consecutive_errors : row.consecutive_errors + 1,
        rateLimitedUntil: rateLimitedMs !== null ? new Date(now.getTime() + rateLimitedMs) : row.rate_limited_until,
        lastPolledAt: now,
      };
      // A failed look heard nothing: the push state keeps the last successful one.
      const decision = this.decide(
        state,
        now,
        row.carrier,
        pushStateOf(row, row.status, row.last_pushed_at, row.last_polled_at),
        await this.deliveryHours.get(row.carrier, now),
      );
      await this.deps.db
        .updateTable('trackings')
        .set({
          consecutive_errors: state.consecutiveErrors,
          rate_limited_until: state.rateLimitedUntil,
          rate_limited_since: waitingSince,
          ...(tellLongWait ? { rate_limit_told_at: now } : {}),
          // An expiry reached while the carrier is failing still stops tracking, visibly.
          ...releaseWith(decision, now),
        })
        .where('order_id', '=', row.order_id)
        .where('lease_token', '=', row.lease_token)
        .execute();
      if (decision.kind === 'stop')
        await recordTimeline(
          this.deps.db,
          { id: row.order_id, account_id: row.account_id },
          'carrier',
          [stopEvent(row, decision.reason)],
          now,
        );
      // Rate limits that have held a package for hours are said once per wait: the merchant sees why
      // delivery news is late (the tracking probe's throttled account said nothing).
      if (tellLongWait) {
        await recordTimeline(
          this.deps.db,
          { id: row.order_id, account_id: row.account_id },
          'carrier',
          [
            {
              type: 'tracking.carrier_unavailable',
              data: { carrier: row.carrier, message: longWaitWords(row.carrier) },
            },
          ],
          now,
        );
      }
      // The third failure in a row is worth a line on the timeline: the merchant sees why nothing moves.
      if (!rateLimited && state.consecutiveErrors === 3) {
        await recordTimeline(
          this.deps.db,
          { id: row.order_id, account_id: row.account_id },
          'carrier',
          [
            {
              type: 'tracking.carrier_unavailable',
              data: {
                carrier: row.carrier,
                message: failedLookWords(row.carrier, error),
              },
            },
          ],
          now,
        );
      }
    }
    return { polled: 0, delivered: 0, rateLimitedMs };
  }
}

/** How long a carrier may keep answering "wait" before the order's timeline says so. */
export const LONG_CARRIER_WAIT_MS = 6 * 3_600_000;

function longWaitWords(carrier: CarrierCode): string {
  const name = carrierDisplayName(carrier);
  return `${name}'s rate limits have kept Doorstep from asking about this package for ${LONG_CARRIER_WAIT_MS / 3_600_000} hours; its news may be late. Doorstep asks again as soon as ${name} lets it.`;
}

/**
 * Why looks keep failing, in the merchant's words: the carrier not answering is not the same as it
 * refusing our credentials (an operator's fix) or answering in a shape we cannot read.
 */
function failedLookWords(carrier: CarrierCode, error: unknown): string {
  const name = carrierDisplayName(carrier);
  if (error instanceof CarrierAuthError)
    return `${name} refused Doorstep's credentials 3 times in a row; retrying with backoff. Doorstep's ${name} settings need checking by its operator (the error log says so).`;
  if (error instanceof CarrierUnexpectedResponseError)
    return `${name} answered 3 times in a row in a way Doorstep could not use; retrying with backoff.`;
  return `${name} did not answer 3 times in a row; retrying with backoff.`;
}

/**
 * An answer that says nothing about a package we know to be on its way: the carrier left the number
 * out of its batch, or its item could not be read ('unknown', nothing dated). Taken as a failed look
 * — retried soon, what we knew stands — not as news: an out-for-delivery package read as 'unknown'
 * would drop to one look a morning and its delivery be seen hours late.
 */
function saysNothingAbout(row: TrackingRow, result: TrackingResult): boolean {
  return (
    result.status === 'unknown' &&
    result.lastEventAt === null &&
    row.status !== null &&
    !['unknown', 'not_found'].includes(row.status)
  );
}

function stopEvent(row: TrackingRow, reason: 'delivered' | 'expired' | 'returned'): TimelineEntry {
  const carrier = carrierDisplayName(row.carrier);
  const messages = {
    // Not reached (see decide), but the schedule's type allows it.
    delivered: `${carrier} reports the package delivered.`,
    expired: `Tracking stopped: ${carrier} reported nothing new for 30 days. The video will not send on its own; mark the order delivered or correct the tracking number.`,
    returned: `Tracking stopped: ${carrier} is returning the package to the sender. The video will not send on its own.`,
  };
  return { type: 'tracking.stopped', data: { reason, message: messages[reason] } };
}

/** Ends a claim: the next poll (or the stop and its reason) and the lease released. */
function releaseWith(decision: PollDecision, now: Date) {
  return {
    next_poll_at: decision.kind === 'poll' ? decision.at : null,
    stopped_reason: decision.kind === 'stop' ? decision.reason : null,
    lease_token: null,
    lease_until: null,
    updated_at: now,
  };
}

/** Like releaseWith, for a row no claim holds. */
function unclaimedWith(decision: PollDecision, now: Date) {
  return {
    next_poll_at: decision.kind === 'poll' ? decision.at : null,
    stopped_reason: decision.kind === 'stop' ? decision.reason : null,
    updated_at: now,
  };
}

export function pushStateOf(
  row: TrackingRow,
  status: TrackingRow['status'],
  lastPushedAt: Date | null,
  lastLookedAt: Date | null,
): PushState {
  return { status, subscribedAt: row.push_subscribed_at, until: row.push_until, lastPushedAt, lastLookedAt };
}

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}

function earliest(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b;
}
