import type { Db } from '../db/database.ts';
import { recordTimeline, type TimelineEntry } from '../orders/timeline.ts';
import { applyObservation, type TrackingObservation } from './observation.ts';
import type { PushState } from './push-schedule.ts';
import type { PollDecision, TrackingState } from './schedule.ts';
import { trackingState, type TrackingRow } from './trackings.ts';

/** What an observation did to an order's package. */
export type ObservationOutcome = 'applied' | 'unchanged' | 'untracked';

/** The poller's decision for a package of one carrier, its learned hours already read (no I/O). */
export type DecideFor = (
  carrier: TrackingRow['carrier'],
) => Promise<(state: TrackingState, push: PushState) => PollDecision>;

/**
 * Records a free observation (observation.ts) on an order's tracked package, the way a carrier's answer
 * is recorded but without a carrier call: the row's status and Shopify's estimate, the next poll the
 * schedule now wants, a timeline entry. Only when the package tracked is one the observation is about
 * (`trackingNumbers`: a Shopify fulfillment's numbers); otherwise, or after tracking stopped, nothing.
 */
export async function recordObservation(
  db: Db,
  orderId: string,
  trackingNumbers: readonly string[],
  observation: TrackingObservation,
  now: Date,
  decideFor: DecideFor,
): Promise<ObservationOutcome> {
  const row = await liveRow(db, orderId, trackingNumbers);
  if (!row) return 'untracked';
  if (observed(row, observation, now) === null) return 'unchanged';
  // Read before the transaction: on PGlite a read on another connection would wait for it.
  const decide = await decideFor(row.carrier);
  return db.transaction().execute(async (trx) => {
    const current = await liveRow(trx, orderId, trackingNumbers, true);
    if (!current) return 'untracked';
    const next = observed(current, observation, now);
    if (next === null) return 'unchanged';
    const { state, statusChanged, estimateChanged } = next;
    const decision = decide(state, {
      status: state.status,
      subscribedAt: current.push_subscribed_at,
      until: current.push_until,
      lastPushedAt: current.last_pushed_at,
      lastLookedAt: current.last_polled_at,
    });
    await trx
      .updateTable('trackings')
      .set({
        ...(statusChanged
          ? { status: state.status, description: SHOPIFY_DESCRIPTION, last_changed_at: state.lastChangedAt }
          : {}),
        ...(estimateChanged ? { observed_estimated_delivery_at: state.estimatedDeliveryAt } : {}),
        // A poll in flight (claimed) sets the next poll when it lands, from the carrier's own answer.
        // An observation never stops tracking: the schedule stops only on the carrier's word.
        ...(current.lease_token === null && decision.kind === 'poll' ? { next_poll_at: decision.at } : {}),
        updated_at: now,
      })
      .where('order_id', '=', orderId)
      .execute();
    const entries: TimelineEntry[] = [];
    if (statusChanged)
      entries.push({
        type: 'tracking.status',
        data: {
          carrier: current.carrier,
          status: state.status,
          description: SHOPIFY_DESCRIPTION,
          at: observation.at.toISOString(),
          via: observation.source,
        },
      });
    if (estimateChanged)
      entries.push({
        type: 'tracking.estimate',
        data: {
          carrier: current.carrier,
          estimated_delivery_at: state.estimatedDeliveryAt!.toISOString(),
          at: observation.at.toISOString(),
          via: observation.source,
        },
      });
    await recordTimeline(trx, { id: orderId, account_id: current.account_id }, observation.source, entries, now);
    return 'applied';
  });
}

const SHOPIFY_DESCRIPTION = 'Reported through Shopify';

async function liveRow(
  db: Db,
  orderId: string,
  trackingNumbers: readonly string[],
  lock = false,
): Promise<TrackingRow | undefined> {
  if (trackingNumbers.length === 0) return undefined;
  const query = db
    .selectFrom('trackings')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('tracking_number', 'in', [...trackingNumbers])
    .where('next_poll_at', 'is not', null);
  return lock ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
}

function observed(
  row: TrackingRow,
  observation: TrackingObservation,
  now: Date,
): { state: TrackingState; statusChanged: boolean; estimateChanged: boolean } | null {
  const before = trackingState(row, now);
  const state = applyObservation(before, observation, now, {
    // Without a carrier estimate, the state's estimate (if any) is an earlier observation's.
    estimateObserved: row.estimated_delivery_at === null,
    lastEventAt: row.last_event_at,
  });
  if (state === before) return null;
  return {
    state,
    statusChanged: state.status !== before.status,
    estimateChanged: state.estimatedDeliveryAt?.getTime() !== before.estimatedDeliveryAt?.getTime(),
  };
}
