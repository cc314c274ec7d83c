/**
 * Free observations: what a package's status or estimate is, heard from somewhere other than a carrier
 * call (today Shopify's `fulfillment_events/create`, docs/tracking.md "Free signals"). Pure: the
 * tracking module applies them to its rows (observations-store.ts), a simulator to its own state.
 *
 * The rules:
 * - A status moves the package only forwards along pre_transit → in_transit → out_for_delivery →
 *   available_for_pickup; anything else (an in_transit after the carrier said out for delivery, a
 *   status older than the carrier's last scan) changes nothing. An observation never delivers, returns
 *   or fails a package: those are the carrier's word (or, for delivered, Shopify's existing path).
 * - An estimate fills ours only when the carrier gave none: a carrier's own estimate always wins, and
 *   a newer observed estimate replaces an older observed one.
 * - A status change is news (`lastChangedAt`), as a carrier's would be: out for delivery from today
 *   starts the dense cadence at once (`nextPoll` sees the scan and the last poll long past).
 */
import type { TrackingStatus } from '../vocabulary.ts';
import type { TrackingState } from './schedule.ts';

/** The statuses an observation may report: the ones on the way to the door. */
export const OBSERVED_STATUSES = ['pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup'] as const;
export type ObservedStatus = (typeof OBSERVED_STATUSES)[number];

export interface TrackingObservation {
  source: 'shopify';
  /** When it happened, as the source says (Shopify's `happened_at`). */
  at: Date;
  status: ObservedStatus | null;
  /** The source's delivery estimate (Shopify's `estimated_delivery_at`); null when it gives none. */
  estimatedDeliveryAt: Date | null;
}

/** How far along the way to the door a status is; null = off the way (the carrier's word only). */
const PROGRESS: Record<TrackingStatus, number | null> = {
  not_found: 0,
  unknown: 0,
  pre_transit: 1,
  failure: 1,
  in_transit: 2,
  out_for_delivery: 3,
  available_for_pickup: 4,
  delivered: null,
  return_to_sender: null,
};

/**
 * The schedule's state with an observation applied, at `now` (when it was heard). `estimateObserved`
 * says whether `state.estimatedDeliveryAt` came from an earlier observation (then a newer one may
 * replace it) rather than from the carrier (then it stands). `lastEventAt`: the carrier's last scan
 * we know; a status that happened before it is stale. Returns the state unchanged (the same object)
 * when the observation says nothing new.
 */
export function applyObservation(
  state: TrackingState,
  observation: TrackingObservation,
  now: Date = observation.at,
  context: { estimateObserved?: boolean; lastEventAt?: Date | null } = {},
): TrackingState {
  const status = observedStatusChange(state, observation, context.lastEventAt ?? null);
  const estimate = observedEstimateChange(state, observation, context.estimateObserved ?? false);
  if (status === null && estimate === null) return state;
  return {
    ...state,
    ...(status === null ? {} : { status, lastChangedAt: now }),
    // An observed estimate is a day or an instant, never a window: the carrier's window (if any) went with its estimate.
    ...(estimate === null ? {} : { estimatedDeliveryAt: estimate, estimatedWindowStartAt: null }),
  };
}

/** The status the observation moves the package to, or null when it does not move it. */
export function observedStatusChange(
  state: Pick<TrackingState, 'status'>,
  observation: Pick<TrackingObservation, 'status' | 'at'>,
  lastEventAt: Date | null,
): ObservedStatus | null {
  if (observation.status === null) return null;
  const ours = state.status === null ? 0 : PROGRESS[state.status];
  if (ours === null) return null;
  if (PROGRESS[observation.status]! <= ours) return null;
  if (lastEventAt !== null && observation.at.getTime() < lastEventAt.getTime()) return null;
  return observation.status;
}

/** The estimate the observation gives us, or null when ours stands. */
export function observedEstimateChange(
  state: Pick<TrackingState, 'estimatedDeliveryAt'>,
  observation: Pick<TrackingObservation, 'estimatedDeliveryAt'>,
  estimateObserved: boolean,
): Date | null {
  const theirs = observation.estimatedDeliveryAt;
  if (theirs === null || Number.isNaN(theirs.getTime())) return null;
  if (state.estimatedDeliveryAt !== null && !estimateObserved) return null;
  if (state.estimatedDeliveryAt?.getTime() === theirs.getTime()) return null;
  return theirs;
}
