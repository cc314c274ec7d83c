import { describe, expect, it } from 'vitest';
import { PUSH_SCHEDULE, pushLiveness, withPush, type PushState } from '../../src/tracking/push-schedule.ts';
import type { PollDecision } from '../../src/tracking/schedule.ts';

const HOUR = 3_600_000;
const now = new Date('2026-12-01T15:00:00Z');
const at = (hoursFromNow: number) => new Date(now.getTime() + hoursFromNow * HOUR);
const soon: PollDecision = { kind: 'poll', at: at(0.25) };

const live = (overrides: Partial<PushState> = {}): PushState => ({
  status: 'in_transit',
  subscribedAt: at(-2),
  until: at(14 * 24 - 2),
  lastPushedAt: at(-1),
  lastLookedAt: at(-1.5),
  ...overrides,
});

describe('withPush: the poll schedule under a push subscription', () => {
  it('without a subscription the adaptive decision stands', () => {
    expect(withPush(soon, live({ subscribedAt: null, until: null }), now)).toEqual(soon);
    expect(pushLiveness(live({ subscribedAt: null, until: null }), now)).toBe('none');
  });

  it('while pushes arrive, stretches to the confirmation cadence', () => {
    expect(pushLiveness(live(), now)).toBe('live');
    expect(withPush(soon, live(), now)).toEqual({ kind: 'poll', at: at(8) });
  });

  it('a new subscription stretches nothing until a look or a push was heard after it began', () => {
    // Subscribed 10 min ago, last looked at 1 h ago: a delivery in between is never pushed.
    const fresh = live({ subscribedAt: at(-1 / 6), lastLookedAt: at(-1), lastPushedAt: null });
    expect(pushLiveness(fresh, now)).toBe('unconfirmed');
    expect(withPush(soon, fresh, now)).toEqual(soon);
    // Never looked at successfully (only failed looks so far): the same.
    expect(pushLiveness(live({ lastLookedAt: null, lastPushedAt: null }), now)).toBe('unconfirmed');
    // Heard since: a look after the subscription, or a pushed event.
    expect(pushLiveness(live({ subscribedAt: at(-1), lastLookedAt: at(-0.5), lastPushedAt: null }), now)).toBe('live');
    expect(pushLiveness(live({ subscribedAt: at(-1), lastLookedAt: at(-2), lastPushedAt: at(-0.5) }), now)).toBe(
      'live',
    );
  });

  it('never brings an adaptive poll forward', () => {
    const later: PollDecision = { kind: 'poll', at: at(30) };
    expect(withPush(later, live({ status: 'pre_transit' }), now)).toEqual(later);
  });

  it('looks no later than the moment a moving package would make the subscription silent', () => {
    // Last heard 10 h ago: silent in 2 h, so the look comes then, not in 8 h.
    expect(withPush(soon, live({ subscribedAt: at(-20), lastPushedAt: at(-10) }), now)).toEqual({
      kind: 'poll',
      at: at(2),
    });
  });

  it('a moving package silent for 12 h falls back to the adaptive schedule', () => {
    const silent = live({ subscribedAt: at(-30), lastPushedAt: at(-12) });
    expect(pushLiveness(silent, now)).toBe('silent');
    expect(withPush(soon, silent, now)).toEqual(soon);
    expect(pushLiveness(live({ status: 'out_for_delivery', subscribedAt: at(-13), lastPushedAt: null }), now)).toBe(
      'silent',
    );
  });

  it('a package waiting for pickup may be quiet for days without the subscription counting as dead', () => {
    const quiet = live({ status: 'pre_transit', subscribedAt: at(-72), lastPushedAt: null });
    expect(pushLiveness(quiet, now)).toBe('live');
    expect(withPush(soon, quiet, now)).toEqual({ kind: 'poll', at: at(8) });
  });

  it('a lapsed subscription falls back, and the sparse look never passes the lapse', () => {
    expect(pushLiveness(live({ until: now }), now)).toBe('lapsed');
    expect(withPush(soon, live({ until: now }), now)).toEqual(soon);
    expect(withPush(soon, live({ status: 'pre_transit', until: at(3) }), now)).toEqual({ kind: 'poll', at: at(3) });
  });

  it('a stop stays a stop', () => {
    const stop: PollDecision = { kind: 'stop', reason: 'expired' };
    expect(withPush(stop, live(), now)).toEqual(stop);
  });

  it('the defaults are a few looks a day and half a day of silence', () => {
    expect(PUSH_SCHEDULE).toEqual({ confirmEveryMs: 8 * HOUR, silentAfterMs: 12 * HOUR });
  });
});
