/**
 * The policies the bench compares: the real schedule, and fixed-interval pollers as the aggregators
 * run them (docs/carriers/NOTES.md: AfterShip 30 min at best, Shippo and Karrio ~2 h, Judge.me's AfterShip 12 h).
 * The baselines poll around the clock from the moment tracking starts, stop on delivery or return, and
 * expire after 30 days without news like AfterShip does.
 */
import { TRACKING_EXPIRY_DAYS, nextPoll, type PollDecision, type TrackingState } from '../../src/tracking/schedule.ts';
import type { Policy } from './simulate.ts';

const MINUTE = 60_000;
const EXPIRY_MS = TRACKING_EXPIRY_DAYS * 24 * 60 * MINUTE;

export interface NamedPolicy {
  name: string;
  policy: Policy;
  /** Judged against the targets (the baselines are context). */
  judged: boolean;
}

// Hook (issue 30 item 2, built in another worktree): a Shopify-fed variant wraps this policy, first
// applying the fulfillment events' observations (out_for_delivery, estimated_delivery_at) to the state
// with the exported pure function, then calling nextPoll; run.ts runs it over drawFamily unchanged.
export const adaptiveSchedule: Policy = (state, now, { hours }) =>
  nextPoll(state, now, { deliveryHours: hours.delivery, pickupHours: hours.pickup });

export function fixedInterval(intervalMs: number): Policy {
  return (state: TrackingState, now: Date): PollDecision => {
    if (state.status === 'delivered') return { kind: 'stop', reason: 'delivered' };
    if (state.status === 'return_to_sender') return { kind: 'stop', reason: 'returned' };
    if (now.getTime() - (state.lastChangedAt ?? state.startedAt).getTime() >= EXPIRY_MS)
      return { kind: 'stop', reason: 'expired' };
    const at = state.lastPolledAt === null ? now.getTime() : state.lastPolledAt.getTime() + intervalMs;
    return { kind: 'poll', at: new Date(Math.max(at, now.getTime())) };
  };
}

export const POLICIES: readonly NamedPolicy[] = [
  { name: 'adaptive (src/tracking/schedule.ts)', policy: adaptiveSchedule, judged: true },
  { name: 'every 30 min (AfterShip best)', policy: fixedInterval(30 * MINUTE), judged: false },
  { name: 'every 2 h (Karrio, Shippo)', policy: fixedInterval(120 * MINUTE), judged: false },
  { name: 'every 12 h (Judge.me via AfterShip)', policy: fixedInterval(720 * MINUTE), judged: false },
];
