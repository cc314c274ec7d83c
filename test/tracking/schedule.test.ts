import { describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/tracking/journey.ts';
import { adaptiveSchedule } from '../../bench/tracking/policies.ts';
import { FAMILY_TARGETS, TARGETS, measure } from '../../bench/tracking/report.ts';
import { simulate } from '../../bench/tracking/simulate.ts';
import { WORLDS } from '../../bench/tracking/worlds.ts';
import type { TrackingStatus } from '../../src/vocabulary.ts';
import {
  CARRIER_POLICY,
  TRACKING_EXPIRY_DAYS,
  newTrackingState,
  nextPoll,
  type PollDecision,
  type ScheduleOptions,
  type TrackingState,
} from '../../src/tracking/schedule.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** US Central daylight time. */
const CDT = -300;

/** A wall-clock time at a UTC offset: local('2026-04-14 13:05') is 13:05 CDT. */
function local(text: string, offsetMinutes = CDT): Date {
  return new Date(Date.parse(`${text.replace(' ', 'T')}:00Z`) - offsetMinutes * MINUTE);
}

function state(overrides: Partial<TrackingState> = {}): TrackingState {
  return { ...newTrackingState(local('2026-04-10 10:00'), CDT), status: 'in_transit', ...overrides };
}

/** A package just polled at `now` (the usual call: right after a poll). */
function polledAt(now: Date, overrides: Partial<TrackingState> = {}): TrackingState {
  return state({ lastPolledAt: now, lastChangedAt: new Date(now.getTime() - HOUR), ...overrides });
}

function pollAt(decision: PollDecision): Date {
  if (decision.kind !== 'poll') throw new Error(`expected a poll, got stop (${decision.reason})`);
  return decision.at;
}

/** When a package just polled at `now` is to be polled next (the question most of these tests ask). */
function pollAfterPolledAt(now: Date, overrides: Partial<TrackingState>, options?: ScheduleOptions): Date {
  return pollAt(nextPoll(polledAt(now, overrides), now, options));
}

function minutesBetween(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / MINUTE;
}

function localClock(at: Date, offsetMinutes = CDT): string {
  return new Date(at.getTime() + offsetMinutes * MINUTE).toISOString().slice(11, 16);
}

describe('nextPoll', () => {
  describe('delivery hours', () => {
    it('does not poll at 03:00 local: an out-for-delivery package waits for 08:00', () => {
      const now = local('2026-04-14 03:00');
      const at = pollAfterPolledAt(now, { status: 'out_for_delivery', lastChangedAt: local('2026-04-14 02:55') });
      expect(at).toEqual(local('2026-04-14 08:00'));
    });

    it('never schedules a poll outside 08:00–21:45 destination time, whatever the status', () => {
      const statuses: TrackingStatus[] = [
        'pre_transit',
        'not_found',
        'unknown',
        'in_transit',
        'out_for_delivery',
        'available_for_pickup',
        'failure',
      ];
      for (const status of statuses) {
        for (let hour = 0; hour < 24; hour++) {
          const now = new Date(local('2026-04-14 00:17').getTime() + hour * HOUR);
          const at = pollAfterPolledAt(now, { status, estimatedDeliveryAt: local('2026-04-14 23:59') });
          const clock = localClock(at);
          expect(clock >= '08:00' && clock <= '21:45', `${status} at ${localClock(now)} → ${clock}`).toBe(true);
        }
      }
    });

    it('uses the union of US delivery hours (12:00–07:45 UTC) when the destination zone is unknown', () => {
      const now = new Date(Date.UTC(2026, 3, 14, 9, 0));
      const at = pollAfterPolledAt(now, {
        status: 'out_for_delivery',
        lastChangedAt: now,
        utcOffsetMinutes: undefined,
      });
      expect(at).toEqual(new Date(Date.UTC(2026, 3, 14, 12, 0)));
      const lateEvening = new Date(Date.UTC(2026, 3, 15, 6, 50)); // 20:50 in Hawaii, still delivering
      const next = pollAt(
        nextPoll(
          polledAt(lateEvening, {
            status: 'out_for_delivery',
            lastChangedAt: lateEvening,
            utcOffsetMinutes: undefined,
          }),
          lateEvening,
        ),
      );
      expect(next).toEqual(new Date(Date.UTC(2026, 3, 15, 7, 0)));
    });
  });

  describe('out for delivery', () => {
    it('polls every 15 min during the day without a window, so a delivery is seen within 15 min', () => {
      let now = local('2026-04-14 08:00');
      for (let i = 0; i < 40; i++) {
        const at = pollAfterPolledAt(now, { status: 'out_for_delivery', lastChangedAt: local('2026-04-14 07:12') });
        expect(minutesBetween(now, at)).toBeGreaterThan(0);
        expect(minutesBetween(now, at)).toBeLessThanOrEqual(15);
        now = at;
      }
    });

    it("without a window, waits for the fleet's learned dense start, then polls every 15 min", () => {
      const scanned = { status: 'out_for_delivery' as const, lastChangedAt: local('2026-04-14 07:12') };
      const deliveryHours = { denseFromMinute: 10 * 60 + 30 };
      const morning = local('2026-04-14 08:00');
      expect(localClock(pollAt(nextPoll(polledAt(morning, scanned), morning, { deliveryHours })))).toBe('10:30');
      const dense = local('2026-04-14 10:30');
      expect(localClock(pollAt(nextPoll(polledAt(dense, scanned), dense, { deliveryHours })))).toBe('10:45');
      // A carrier window still decides where there is one.
      const window = {
        ...scanned,
        estimatedWindowStartAt: local('2026-04-14 14:00'),
        estimatedDeliveryAt: local('2026-04-14 18:00'),
      };
      expect(nextPoll(polledAt(morning, window), morning, { deliveryHours })).toEqual(
        nextPoll(polledAt(morning, window), morning),
      );
      // Unknown zone: the learned local minute is taken in the first zone to wake (EDT).
      const unknown = { ...scanned, utcOffsetMinutes: undefined };
      const edtMorning = local('2026-04-14 08:00', -240);
      expect(localClock(pollAt(nextPoll(polledAt(edtMorning, unknown), edtMorning, { deliveryHours })), -240)).toBe(
        '10:30',
      );
    });

    it('polls every 10 min when the operator asks for a 10-min cadence', () => {
      const now = local('2026-04-14 13:00');
      const at = pollAfterPolledAt(
        now,
        { status: 'out_for_delivery', lastChangedAt: local('2026-04-14 07:12') },
        { policy: { deliveryDayIntervalMs: 10 * MINUTE } },
      );
      expect(minutesBetween(now, at)).toBe(10);
    });

    it("waits for the carrier's window: sparse before it, every 15 min from 15 min before it opens", () => {
      const window = {
        status: 'out_for_delivery' as const,
        lastChangedAt: local('2026-04-14 07:12'),
        estimatedWindowStartAt: local('2026-04-14 14:00'),
        estimatedDeliveryAt: local('2026-04-14 18:00'),
      };
      const morning = local('2026-04-14 08:00');
      const next = pollAt(nextPoll(polledAt(morning, window), morning));
      expect(minutesBetween(morning, next)).toBeGreaterThanOrEqual(60);
      expect(minutesBetween(morning, next)).toBeLessThanOrEqual(120);
      const beforeWindow = local('2026-04-14 13:00');
      expect(pollAt(nextPoll(polledAt(beforeWindow, window), beforeWindow))).toEqual(local('2026-04-14 13:45'));
      const inWindow = local('2026-04-14 15:30');
      expect(pollAt(nextPoll(polledAt(inWindow, window), inWindow))).toEqual(local('2026-04-14 15:45'));
      // The window passed without a delivery: the package is late, not gone.
      const afterWindow = local('2026-04-14 18:30');
      expect(pollAt(nextPoll(polledAt(afterWindow, window), afterWindow))).toEqual(local('2026-04-14 18:45'));
    });

    it('puts packages on the same cadence on the same instants, so a claimer batches them', () => {
      const a = local('2026-04-14 11:03');
      const b = local('2026-04-14 11:11');
      const atA = pollAt(nextPoll(polledAt(a, { status: 'out_for_delivery', lastChangedAt: a }), a));
      const atB = pollAt(nextPoll(polledAt(b, { status: 'out_for_delivery', lastChangedAt: b }), b));
      expect(atA).toEqual(local('2026-04-14 11:15'));
      expect(atB).toEqual(atA);
    });
  });

  describe('before the delivery day', () => {
    it('looks soon after tracking starts, on the next half hour', () => {
      const now = local('2026-04-10 10:07');
      const at = pollAt(nextPoll(state({ status: null, startedAt: now }), now));
      expect(at).toEqual(local('2026-04-10 10:30'));
    });

    it('polls a label that is not scanned yet once a morning', () => {
      const now = local('2026-04-10 10:30');
      const at = pollAfterPolledAt(now, { status: 'pre_transit', lastChangedAt: local('2026-04-10 10:00') });
      expect(at).toEqual(local('2026-04-11 09:00'));
    });

    // Intended change (issue 30): a pre-transit label no longer backs off after a week of silence — a
    // label first scanned weeks late may be delivered the next day and was then seen days late.
    it('looks at a label silent for weeks once a morning, so a late first scan is seen the next morning', () => {
      const startedAt = local('2026-04-01 10:00');
      for (const day of ['2026-04-11', '2026-04-21']) {
        const now = local(`${day} 09:00`);
        const next = pollAfterPolledAt(now, { status: 'pre_transit', startedAt, lastChangedAt: startedAt });
        expect(minutesBetween(now, next)).toBe(24 * 60);
      }
    });

    // Intended change (issue 30 item 4): in transit, every day before the estimated one is watched at 09:30
    // and 21:30 (an evening look alone left deliveries before 09:00 or after 21:00 seen 13–18 h late; the
    // pair moved from 09:00/21:00 when deliveries until 21:30 came into the world family: 12 h apart, and
    // a failed 21:30 look is retried before polls end at 21:45).
    it('looks each morning and evening at a package in transit whose estimated day is days away', () => {
      const estimatedDeliveryAt = local('2026-04-14 23:59');
      const looks: string[] = [];
      let now = local('2026-04-10 09:00');
      while (now < local('2026-04-13 10:00')) {
        now = pollAfterPolledAt(now, { estimatedDeliveryAt });
        looks.push(new Date(now.getTime() + CDT * MINUTE).toISOString().slice(5, 16).replace('T', ' '));
      }
      expect(looks.slice(0, 6)).toEqual([
        '04-10 09:30',
        '04-10 21:30',
        '04-11 09:30',
        '04-11 21:30',
        '04-12 09:30',
        '04-12 21:30',
      ]);
    });

    it('watches the day before the estimated day morning and evening, so an unannounced early delivery is seen that day', () => {
      const estimatedDeliveryAt = local('2026-04-14 23:59');
      const looks: string[] = [];
      let now = local('2026-04-13 08:00');
      for (;;) {
        now = pollAfterPolledAt(now, { estimatedDeliveryAt });
        if (now >= local('2026-04-14 00:00')) break;
        looks.push(localClock(now));
      }
      expect(looks).toEqual(['09:30', '21:30']);
      expect(now).toEqual(local('2026-04-14 08:00'));
    });

    // Intended change (issue 30): 15 min, not 30 then hourly — deliveries without an out-for-delivery
    // scan (up to 30% in the world family) were seen up to an hour late.
    it('waits for the out-for-delivery scan every 15 min on the estimated day, all day, with or without learned pickup hours', () => {
      const estimatedDeliveryAt = local('2026-04-14 23:59');
      const morning = local('2026-04-14 08:00');
      expect(pollAt(nextPoll(polledAt(morning, { estimatedDeliveryAt }), morning))).toEqual(local('2026-04-14 08:15'));
      const pickupHours = { fromMinute: 10 * 60, untilMinute: 18 * 60 };
      for (const options of [{ pickupHours }, {}]) {
        const gaps: number[] = [];
        let now = local('2026-04-14 11:00');
        while (now < local('2026-04-14 14:00')) {
          const next = pollAfterPolledAt(now, { estimatedDeliveryAt }, options);
          gaps.push(minutesBetween(now, next));
          now = next;
        }
        expect(Math.max(...gaps)).toBe(15);
      }
    });

    // Intended change (issue 30): the first delivery day after a silently passed estimate is watched like
    // the estimated day. Late packages delivered then without an out-for-delivery scan waited for the
    // 21:00 watch look: the biggest cause of late deliveries in the world family.
    it('watches the delivery day after a silently passed estimate like the estimated day, Sunday skipped', () => {
      const looksOn = (day: string, estimate: string, options?: ScheduleOptions): string[] => {
        const looks: string[] = [];
        let now = local(`${day} 07:00`);
        while (now < local(`${day} 23:00`)) {
          now = pollAfterPolledAt(
            now,
            { estimatedDeliveryAt: local(`${estimate} 23:59`), lastChangedAt: local(`${estimate} 03:00`) },
            options,
          );
          if (now < local(`${day} 23:00`)) looks.push(localClock(now));
        }
        return looks;
      };
      // Learned hours: the opening and 09:00 looks for the scan, then every 15 min from the dense start.
      const learned = { deliveryHours: { denseFromMinute: 10 * 60 } };
      const wednesday = looksOn('2026-04-15', '2026-04-14', learned);
      expect(wednesday.slice(0, 5)).toEqual(['08:00', '09:00', '10:00', '10:15', '10:30']);
      expect(wednesday.at(-1)).toBe('21:45');
      expect(wednesday).toHaveLength(2 + 48);
      // Without them, every 15 min from the opening.
      expect(looksOn('2026-04-15', '2026-04-14').slice(0, 3)).toEqual(['08:00', '08:15', '08:30']);
      // The estimated day itself opens the same way.
      expect(looksOn('2026-04-14', '2026-04-14', learned).slice(0, 4)).toEqual(['08:00', '09:00', '10:00', '10:15']);
      // Estimated for Saturday 04-18: Monday is the next delivery day; Sunday is only watched.
      expect(looksOn('2026-04-19', '2026-04-18', learned)).toEqual(['09:30', '11:00', '21:30']);
      expect(looksOn('2026-04-20', '2026-04-18', learned).slice(0, 3)).toEqual(['08:00', '09:00', '10:00']);
    });

    it("walks from a Saturday estimate's last look to Monday's scan looks, even after a long silence", () => {
      const learned = { deliveryHours: { denseFromMinute: 10 * 60 } };
      for (const lastChangedAt of [local('2026-04-18 03:00'), local('2026-04-05 03:00')]) {
        const looks: string[] = [];
        let now = local('2026-04-18 21:45');
        while (now < local('2026-04-20 10:00')) {
          now = pollAfterPolledAt(now, { estimatedDeliveryAt: local('2026-04-18 23:59'), lastChangedAt }, learned);
          looks.push(new Date(now.getTime() + CDT * MINUTE).toISOString().slice(5, 16).replace('T', ' '));
        }
        expect(looks.slice(-3)).toEqual(['04-20 08:00', '04-20 09:00', '04-20 10:00']);
      }
    });

    it('watches a package whose estimate has passed by more than a day three times a day, never more than 12 h apart in delivery hours', () => {
      const looks: string[] = [];
      let now = local('2026-04-16 08:00');
      while (now < local('2026-04-17 08:00')) {
        now = pollAt(
          nextPoll(
            polledAt(now, { estimatedDeliveryAt: local('2026-04-14 23:59'), lastChangedAt: local('2026-04-15 03:00') }),
            now,
          ),
        );
        if (now < local('2026-04-17 08:00')) looks.push(localClock(now));
      }
      expect(looks).toEqual(['09:30', '11:00', '21:30']);
    });

    it('keeps looks on an unannounced day under 12 h apart across US delivery hours when the zone is unknown', () => {
      // Unknown zone: delivery hours are the union, 12:00 UTC (08:00 EDT) to 07:30 UTC (21:30 HST).
      const noEstimate = (at: Date): TrackingState => ({
        ...polledAt(at, { lastChangedAt: new Date(at.getTime() - HOUR) }),
        utcOffsetMinutes: undefined,
      });
      const opens = new Date('2026-04-15T12:00:00Z');
      const closes = new Date('2026-04-16T07:30:00Z');
      let now = new Date('2026-04-15T11:00:00Z');
      let lastLook = now;
      let widest = 0;
      while (lastLook < closes) {
        now = pollAt(nextPoll(noEstimate(now), now));
        const from = Math.max(lastLook.getTime(), opens.getTime());
        widest = Math.max(widest, Math.min(now.getTime(), closes.getTime()) - from);
        lastLook = now;
      }
      expect(widest).toBeLessThanOrEqual(12 * HOUR);
    });
    it("watches a pickup every 15 min in the fleet's pickup hours, and at the watch looks outside them", () => {
      const pickupHours = { fromMinute: 10 * 60, untilMinute: 18 * 60 };
      const held = { status: 'available_for_pickup' as const, lastChangedAt: local('2026-04-14 14:30') };
      const looks: string[] = [];
      let now = local('2026-04-14 14:30');
      while (now < local('2026-04-15 11:00')) {
        now = pollAfterPolledAt(now, held, { pickupHours });
        looks.push(localClock(now));
      }
      // Every 15 min to 18:00, the 21:30 watch look, the 09:30 one, then every 15 min from 10:00.
      expect(looks.slice(0, 2)).toEqual(['14:45', '15:00']);
      expect(looks.slice(13)).toEqual(['18:00', '21:30', '09:30', '10:00', '10:15', '10:30', '10:45', '11:00']);
      // Intended change (issue 30): without learned hours (too few collections seen), the hours pickup
      // points keep, 09:00–20:00, not hourly looks (which saw most collections over 15 min late).
      const unlearned: string[] = [];
      now = local('2026-04-14 14:30');
      while (now < local('2026-04-15 09:30')) {
        now = pollAfterPolledAt(now, held, { pickupHours: null });
        unlearned.push(localClock(now));
      }
      expect(unlearned.slice(0, 2)).toEqual(['14:45', '15:00']);
      expect(unlearned.slice(21)).toEqual(['20:00', '21:30', '09:00', '09:15', '09:30']);
      // Zone unknown: from 09:00 in the first zone to open (EDT, 13:00 UTC), every 15 min.
      const eastern9 = new Date('2026-04-15T13:00:00Z');
      const unknownZone = { ...polledAt(eastern9, held), utcOffsetMinutes: undefined };
      expect(pollAt(nextPoll(unknownZone, eastern9, { pickupHours: null }))).toEqual(new Date('2026-04-15T13:15:00Z'));
    });

    it('backs an exception off to a few polls a day', () => {
      const polls: string[] = [];
      let now = local('2026-04-14 08:00');
      while (now < local('2026-04-15 08:00')) {
        now = pollAfterPolledAt(now, { status: 'failure', lastChangedAt: local('2026-04-14 07:00') });
        if (now < local('2026-04-15 08:00')) polls.push(localClock(now));
      }
      expect(polls.length).toBeGreaterThanOrEqual(2);
      expect(polls.length).toBeLessThanOrEqual(4);
    });
  });

  describe('errors and rate limits', () => {
    it('retries a failed look after 5 min, doubling while it keeps failing, capped at 2 h', () => {
      const now = local('2026-04-14 10:00');
      const delays = [1, 2, 3, 4, 5, 6, 7, 12].map((errors) =>
        minutesBetween(now, pollAfterPolledAt(now, { status: 'pre_transit', consecutiveErrors: errors })),
      );
      expect(delays).toEqual([5, 10, 20, 40, 80, 120, 120, 120]);
    });

    it('retries a failed look of a package out for delivery at the next claim, then backs off within the cadence', () => {
      // A delivery just before the failed look waits for the retry: after 5 min it would be seen up to
      // 20 min late. The second failure in a row backs off as usual (10 min), never slower than 15 min.
      const now = local('2026-04-14 13:00');
      const ofd = { status: 'out_for_delivery' as const, lastChangedAt: local('2026-04-14 07:00') };
      expect(minutesBetween(now, pollAfterPolledAt(now, { ...ofd, consecutiveErrors: 1 }))).toBe(1);
      expect(minutesBetween(now, pollAfterPolledAt(now, { ...ofd, consecutiveErrors: 2 }))).toBe(10);
      expect(minutesBetween(now, pollAfterPolledAt(now, { ...ofd, consecutiveErrors: 6 }))).toBe(15);
    });

    it("does not poll before a 429's Retry-After, even when the package is out for delivery", () => {
      const now = local('2026-04-14 13:00');
      const rateLimitedUntil = local('2026-04-14 13:37');
      const at = pollAfterPolledAt(now, { status: 'out_for_delivery', lastChangedAt: now, rateLimitedUntil });
      expect(at).toEqual(rateLimitedUntil);
    });

    it('moves a Retry-After that ends at night to the next morning', () => {
      const now = local('2026-04-14 20:30');
      const at = pollAt(
        nextPoll(
          polledAt(now, {
            status: 'out_for_delivery',
            lastChangedAt: now,
            rateLimitedUntil: local('2026-04-14 23:00'),
          }),
          now,
        ),
      );
      expect(at).toEqual(local('2026-04-15 08:00'));
    });
  });

  describe('stopping', () => {
    it('stops when the package is delivered', () => {
      expect(nextPoll(state({ status: 'delivered' }), local('2026-04-14 13:00'))).toEqual({
        kind: 'stop',
        reason: 'delivered',
      });
    });

    it('stops when the package goes back to the sender', () => {
      expect(nextPoll(state({ status: 'return_to_sender' }), local('2026-04-14 13:00'))).toEqual({
        kind: 'stop',
        reason: 'returned',
      });
    });

    // A package left waiting at a pickup point ends too: its video is never held for ever.
    it.each(['in_transit', 'available_for_pickup'] as const)(
      `stops as expired after ${TRACKING_EXPIRY_DAYS} days without news (%s)`,
      (status) => {
        const lastChangedAt = local('2026-04-01 10:00');
        const now = new Date(lastChangedAt.getTime() + TRACKING_EXPIRY_DAYS * DAY);
        expect(nextPoll(polledAt(now, { status, lastChangedAt }), now)).toEqual({
          kind: 'stop',
          reason: 'expired',
        });
      },
    );

    it('takes a last look at the expiry rather than sleeping past it', () => {
      const lastChangedAt = local('2026-04-01 10:00');
      // Half an hour before the expiry (pre-transit labels are looked at every morning since issue 30).
      const now = new Date(lastChangedAt.getTime() + 30 * DAY - 30 * MINUTE);
      const at = pollAfterPolledAt(now, { status: 'pre_transit', startedAt: lastChangedAt, lastChangedAt });
      expect(at.getTime()).toBeGreaterThanOrEqual(lastChangedAt.getTime() + TRACKING_EXPIRY_DAYS * DAY);
      expect(minutesBetween(new Date(lastChangedAt.getTime() + TRACKING_EXPIRY_DAYS * DAY), at)).toBeLessThanOrEqual(
        60,
      );
    });

    it('counts news, not polls: a package with a recent event does not expire', () => {
      const now = local('2026-05-20 10:00');
      const decision = nextPoll(
        polledAt(now, { startedAt: local('2026-04-01 10:00'), lastChangedAt: local('2026-05-19 03:00') }),
        now,
      );
      expect(decision.kind).toBe('poll');
    });
  });

  describe('demo profile', () => {
    it('polls every few seconds, around the clock', () => {
      const night = local('2026-04-14 03:00');
      const at = pollAt(nextPoll(polledAt(night, { status: 'pre_transit' }), night, { profile: 'demo' }));
      expect(minutesBetween(night, at) * 60).toBe(5);
      const custom = pollAt(
        nextPoll(polledAt(night, { status: 'out_for_delivery' }), night, { profile: 'demo', demoIntervalMs: 2_000 }),
      );
      expect(custom.getTime() - night.getTime()).toBe(2_000);
    });

    it('polls a new demo package at once and keeps its cadence through errors', () => {
      const now = local('2026-04-14 03:00');
      expect(pollAt(nextPoll(state({ status: null, startedAt: now }), now, { profile: 'demo' }))).toEqual(now);
      const at = pollAfterPolledAt(now, { consecutiveErrors: 3 }, { profile: 'demo' });
      expect(at.getTime() - now.getTime()).toBe(5_000);
    });
  });

  it('exports the defaults it documents', () => {
    expect(CARRIER_POLICY.deliveryDayIntervalMs).toBe(15 * MINUTE);
    expect(TRACKING_EXPIRY_DAYS).toBe(30);
  });
});

describe('the schedule in every world of the bench (bench/tracking/worlds.ts)', () => {
  // Max lag is the bound that must hold for every package, so it is checked in every world even on a
  // small fleet; p95 and calls need the bench's 10,000 packages to be stable.
  for (const world of WORLDS) {
    it(`sees every delivery within ${TARGETS.lagMaxHours} h: ${world.name}`, () => {
      const fleet = generateFleet({ packages: 1500, seed: 7, ...world.fleet });
      const metrics = measure(
        world.name,
        'world',
        fleet,
        simulate(fleet, adaptiveSchedule, { seed: 7, ...world.simulation }),
      );
      expect(metrics.undetected).toBe(0);
      expect(metrics.lagMaxMinutes).toBeLessThanOrEqual(TARGETS.lagMaxHours * 60);
    });
  }
});

describe('the schedule on a simulated fleet (bench/tracking)', () => {
  // A regression in the policy (polling too rarely on the delivery day, or too often before it) shows
  // up here before it shows up in the bench.
  const fleet = generateFleet({ packages: 600, seed: 7 });
  const metrics = measure('adaptive', 'policy', fleet, simulate(fleet, adaptiveSchedule, { seed: 7 }));

  it(`sees 95% of deliveries within ${TARGETS.lagP95Minutes} min`, () => {
    expect(metrics.lagP95Minutes).toBeLessThanOrEqual(TARGETS.lagP95Minutes);
  });

  // Issue 30 raised the base world from ~24 to ~26 calls (15-min looks awaiting the scan, an evening look
  // each transit day, a daily look at pre-transit labels): the regression guard is now the family's
  // worst-world budget, not 25 (which the base world no longer meets; bench/tracking/RESULTS.md).
  it(`spends at most ${FAMILY_TARGETS.callsWorstWorld} carrier calls per delivered package`, () => {
    expect(metrics.callsPerDelivered).toBeLessThanOrEqual(FAMILY_TARGETS.callsWorstWorld);
  });

  it('sees every delivery and keeps never-scanned and exception packages a small part of the bill', () => {
    expect(metrics.undetected).toBe(0);
    expect(metrics.troubledCallShare).toBeLessThanOrEqual(TARGETS.troubledCallShare);
  });
});
