import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { CarrierBudget } from '../carriers/budget.ts';
import { CarrierQuotaError, CarrierRateLimitedError } from '../carriers/clients/errors.ts';
import type { CarrierClient, TrackingResult } from '../carriers/clients/types.ts';
import { carrierDisplayName } from '../carriers/tracking-number.ts';
import type { Db } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { recordTimeline, type TimelineEntry } from '../orders/timeline.ts';
import type { OrderService } from '../orders/service.ts';
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
}

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

  constructor(private readonly deps: TrackingPollerDeps) {
    this.now = deps.now ?? (() => new Date());
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
    for (const [index, row] of rows.entries()) {
      const result = results[index];
      if (result && (await this.applyResult(row, result))) delivered++;
    }
    return { polled: rows.length, delivered, rateLimitedMs: null };
  }

  /** Returns true when the result delivered the order. */
  private async applyResult(row: TrackingRow, result: TrackingResult): Promise<boolean> {
    const now = this.now();
    const changed =
      result.status !== row.status ||
      !sameTime(result.estimatedDeliveryAt, row.estimated_delivery_at) ||
      !sameTime(result.lastEventAt, row.last_event_at);
    const state = {
      ...trackingState(row),
      status: result.status,
      lastPolledAt: now,
      lastChangedAt: changed ? now : row.last_changed_at,
      estimatedDeliveryAt: result.estimatedDeliveryAt,
      estimatedWindowStartAt: result.estimatedWindowStartAt ?? null,
      consecutiveErrors: 0,
      rateLimitedUntil: null,
    };
    const isDelivered = result.status === 'delivered';
    const decision = this.decide(state, now, row.carrier);

    const applied = await this.deps.db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('trackings')
        .selectAll()
        .where('order_id', '=', row.order_id)
        .forUpdate()
        .executeTakeFirst();
      // The shipment changed or tracking stopped while we were asking: this answer is stale.
      if (
        !current ||
        current.lease_token !== row.lease_token ||
        current.tracking_number !== row.tracking_number ||
        current.next_poll_at === null
      )
        return false;
      await trx
        .updateTable('trackings')
        .set({
          status: result.status,
          description: result.description,
          last_polled_at: now,
          last_changed_at: state.lastChangedAt,
          last_event_at: result.lastEventAt,
          delivered_at: result.deliveredAt,
          estimated_delivery_at: result.estimatedDeliveryAt,
          estimated_window_start_at: state.estimatedWindowStartAt,
          consecutive_errors: 0,
          rate_limited_until: null,
          poll_count: current.poll_count + 1,
          ...releaseWith(decision, now),
        })
        .where('order_id', '=', row.order_id)
        .execute();
      const events: TimelineEntry[] = [];
      if (result.status !== row.status) {
        events.push({
          type: 'tracking.status',
          data: {
            carrier: row.carrier,
            status: result.status,
            description: result.description,
            at: (result.lastEventAt ?? now).toISOString(),
          },
        });
      }
      if (decision.kind === 'stop') events.push(stopEvent(row, decision.reason));
      await recordTimeline(trx, { id: row.order_id, account_id: row.account_id }, 'carrier', events, now);
      return true;
    });
    if (!applied || !isDelivered) return false;

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
      { orderId: row.order_id, carrier: row.carrier, deliveredAt: result.deliveredAt },
      deliveredNow ? 'carrier reported delivery' : 'carrier delivery was already known',
    );
    return deliveredNow;
  }

  /**
   * A package the carrier calls delivered keeps a near poll until the order's `order.delivered`
   * event stops its tracking: a crash, or a failing carrier, between the two can then never lose the
   * delivery.
   */
  private decide(state: TrackingState, now: Date, carrier: CarrierCode): PollDecision {
    if (state.status === 'delivered') return { kind: 'poll', at: new Date(now.getTime() + 60_000) };
    return nextPoll(state, now, this.deps.schedules[carrier]);
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
    } else {
      this.deps.logger.warn(
        { carrier: rows[0]?.carrier, packages: rows.length, err: error },
        rateLimited ? 'carrier rate limited us' : 'carrier call failed',
      );
    }
    for (const row of rows) {
      const state = {
        ...trackingState(row),
        consecutiveErrors: rateLimited ? row.consecutive_errors : row.consecutive_errors + 1,
        rateLimitedUntil: rateLimitedMs !== null ? new Date(now.getTime() + rateLimitedMs) : row.rate_limited_until,
        lastPolledAt: now,
      };
      const decision = this.decide(state, now, row.carrier);
      await this.deps.db
        .updateTable('trackings')
        .set({
          consecutive_errors: state.consecutiveErrors,
          rate_limited_until: state.rateLimitedUntil,
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
                message: `${carrierDisplayName(row.carrier)} did not answer 3 times in a row; retrying with backoff.`,
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

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}
