/**
 * How a live carrier push subscription changes the poll schedule: a pure decision on top of the
 * adaptive schedule's (`schedule.ts`), which it never replaces.
 *
 * While the carrier is telling us (a subscription is live and not silent), polling is only a
 * confirmation that nothing was missed: a few looks a day. It tightens back to the adaptive schedule
 * when the subscription lapses, or goes silent — no event for `silentAfterMs` while the package is
 * moving (in transit or out for delivery), when a real carrier would have scanned it. A package
 * waiting for pickup (pre-transit) may be quiet for days without anything being wrong, so silence
 * only counts once it moves.
 *
 * The sparse look is never later than the moment the subscription would turn silent or lapse: that
 * look is what notices the silence, so a dead subscription costs at most `silentAfterMs` of lag
 * before the adaptive schedule resumes.
 *
 * A new subscription is not trusted until something was heard strictly after it began — a successful
 * look or a pushed event (a look in the same instant may have been answered before it). The carrier pushes only what happens from then on: a package delivered between our
 * last look and the subscription would otherwise wait for the confirmation look, 8 h later (found by
 * `npm run soak`: failed looks during a carrier outage stretched unconfirmed packages the same way).
 */
import type { TrackingStatus } from '../vocabulary.ts';
import type { PollDecision } from './schedule.ts';

export interface PushState {
  status: TrackingStatus | null;
  /** When the live subscription began; null = no subscription. */
  subscribedAt: Date | null;
  /** When it lapses (UPS Track Alert: 14 days after subscribing). */
  until: Date | null;
  /** The last event the carrier pushed. */
  lastPushedAt: Date | null;
  /** The last successful look at the carrier (a poll that got an answer); failed looks do not count. */
  lastLookedAt: Date | null;
}

export interface PushScheduleOptions {
  /** The confirmation cadence while pushes arrive. */
  confirmEveryMs: number;
  /** No pushed event for this long while the package moves: the subscription is treated as dead. */
  silentAfterMs: number;
}

const HOUR_MS = 3_600_000;

/** Three looks a day; a moving UPS package is scanned several times a day, so 12 h of silence means trouble. */
export const PUSH_SCHEDULE: Readonly<PushScheduleOptions> = {
  confirmEveryMs: 8 * HOUR_MS,
  silentAfterMs: 12 * HOUR_MS,
};

const MOVING: ReadonlySet<TrackingStatus> = new Set<TrackingStatus>(['in_transit', 'out_for_delivery']);

export type PushLiveness = 'none' | 'unconfirmed' | 'live' | 'lapsed' | 'silent';

/** Whether the carrier can be relied on to tell us about this package right now. */
export function pushLiveness(push: PushState, now: Date, options: PushScheduleOptions = PUSH_SCHEDULE): PushLiveness {
  if (!push.subscribedAt || !push.until) return 'none';
  if (push.until.getTime() <= now.getTime()) return 'lapsed';
  const heardSince = Math.max(push.lastLookedAt?.getTime() ?? 0, push.lastPushedAt?.getTime() ?? 0);
  if (heardSince <= push.subscribedAt.getTime()) return 'unconfirmed';
  if (push.status && MOVING.has(push.status) && now.getTime() >= silentAt(push, options)) return 'silent';
  return 'live';
}

/**
 * The next poll given the adaptive schedule's decision: stretched to the confirmation cadence while
 * the subscription is live, the adaptive decision unchanged otherwise (and always for a stop).
 */
export function withPush(
  adaptive: PollDecision,
  push: PushState,
  now: Date,
  options: PushScheduleOptions = PUSH_SCHEDULE,
): PollDecision {
  if (adaptive.kind === 'stop') return adaptive;
  if (pushLiveness(push, now, options) !== 'live') return adaptive;
  let sparse = Math.min(now.getTime() + options.confirmEveryMs, push.until!.getTime());
  // Only a moving package can turn silent; for the others the sparse look is the safety net as is.
  if (push.status && MOVING.has(push.status)) sparse = Math.min(sparse, silentAt(push, options));
  return { kind: 'poll', at: new Date(Math.max(adaptive.at.getTime(), sparse)) };
}

function silentAt(push: PushState, options: PushScheduleOptions): number {
  const lastHeard = Math.max(push.subscribedAt?.getTime() ?? 0, push.lastPushedAt?.getTime() ?? 0);
  return lastHeard + options.silentAfterMs;
}
