import { describe, expect, it } from 'vitest';
import { checkTargets, type Metrics } from '../../bench/tracking/report.ts';
import { zeroByPhase } from '../../bench/tracking/simulate.ts';
import {
  CARRIER_POLICY,
  newTrackingState,
  nextPoll,
  type PollPolicy,
  type ScheduleOptions,
  type TrackingState,
} from '../../src/tracking/schedule.ts';

// The knobs bench/tracking/levers.ts turns: each moves the look it documents, and the defaults keep the
// schedule as the bench judges it.
const MINUTE = 60_000;
const CDT = -300;

function local(text: string): Date {
  return new Date(Date.parse(`${text.replace(' ', 'T')}:00Z`) - CDT * MINUTE);
}

function clock(at: Date): string {
  return new Date(at.getTime() + CDT * MINUTE).toISOString().slice(0, 16).replace('T', ' ');
}

/** A package in transit, estimated for Wednesday 2026-04-15 (a date-only estimate), just polled at `now`. */
function inTransit(now: string, overrides: Partial<TrackingState> = {}): TrackingState {
  return {
    ...newTrackingState(local('2026-04-10 10:00'), CDT),
    status: 'in_transit',
    lastPolledAt: local(now),
    lastChangedAt: local('2026-04-12 03:00'),
    estimatedDeliveryAt: local('2026-04-15 23:59'),
    ...overrides,
  };
}

const learned: ScheduleOptions = {
  deliveryHours: { denseFromMinute: 10 * 60 },
  pickupHours: { fromMinute: 10 * 60, untilMinute: 18 * 60 },
};

function next(s: TrackingState, now: string, policy: Partial<PollPolicy> = {}): string {
  const decision = nextPoll(s, local(now), { ...learned, policy });
  if (decision.kind !== 'poll') throw new Error('expected a poll');
  return clock(decision.at);
}

describe('schedule levers (PollPolicy knobs)', () => {
  it('defaults to the schedule the bench judges', () => {
    expect(CARRIER_POLICY.awaitingScanIntervalMs).toBe(15 * MINUTE);
    // Issue 30 item 5: the levers only the exchange-rate table turned are gone from production.
    for (const retired of [
      'lateMorningEarlierMinutes',
      'estimatedDayFromMorningCheck',
      'eveMorningLook',
      'watchLateMorningLook',
      'noScanIntervalMs',
      // Pickups without learned hours are watched in UNLEARNED_PICKUP_HOURS, not hourly then every 3 h.
      'pickupIntervalMs',
      'pickupSlowAfterMs',
      'pickupSlowIntervalMs',
    ])
      expect(CARRIER_POLICY).not.toHaveProperty(retired);
    expect(CARRIER_POLICY.pickupDenseIntervalMs).toBe(15 * MINUTE);
  });

  it('waits for the scan at the awaiting cadence all estimated day, and opens the day at 08:00', () => {
    expect(next(inTransit('2026-04-15 10:00'), '2026-04-15 10:00')).toBe('2026-04-15 10:15');
    expect(next(inTransit('2026-04-15 10:00'), '2026-04-15 10:00', { awaitingScanIntervalMs: 30 * MINUTE })).toBe(
      '2026-04-15 10:30',
    );
    expect(next(inTransit('2026-04-15 13:00'), '2026-04-15 13:00')).toBe('2026-04-15 13:15');
    expect(next(inTransit('2026-04-14 21:30'), '2026-04-14 21:30')).toBe('2026-04-15 08:00');
    expect(next(inTransit('2026-04-13 21:30'), '2026-04-13 21:30')).toBe('2026-04-14 09:30');
  });

  it('keeps the 11:00 watch look, and thins pickups inside their hours', () => {
    // Estimated for Wednesday: Thursday is still an expected day, Friday is watched.
    const passed = inTransit('2026-04-17 09:30');
    expect(next(passed, '2026-04-17 09:30')).toBe('2026-04-17 11:00');
    const pickup = inTransit('2026-04-16 12:00', { status: 'available_for_pickup', estimatedDeliveryAt: null });
    expect(next(pickup, '2026-04-16 12:00')).toBe('2026-04-16 12:15');
    expect(next(pickup, '2026-04-16 12:00', { pickupDenseIntervalMs: 30 * MINUTE })).toBe('2026-04-16 12:30');
  });
});

describe('the calls MISS line (bench/tracking/report.ts)', () => {
  const world = {
    name: 'no delivery windows',
    kind: 'world',
    packages: 100,
    delivered: 90,
    undetected: 0,
    callsPerDelivered: 28,
    pollsPerDelivered: { ups: 28, fedex: 28, usps: 28 },
    requestsPerDelivered: { ups: 28, fedex: 1, usps: 1 },
    batchFill: { ups: 1, fedex: 20, usps: 25 },
    peakRequestsPerHour: { ups: 10, fedex: 10, usps: 10 },
    lagP50Minutes: 7,
    lagP95Minutes: 14.9,
    lagMaxMinutes: 600,
    lateShare: 0.047,
    lateCauses: { pickup: 0, no_out_for_delivery_scan: 0.023, before_window: 0, other: 0.024 },
    troubledCallShare: 0.05,
    troubledPackageShare: 0.05,
    callsByStatus: { out_for_delivery: 17.8 },
    callsByPhase: zeroByPhase(),
    callsWithWindow: 0,
    callsWithoutWindow: 27.4,
    withoutWindowShare: 1,
    claimsPerDay: { ups: 100, fedex: 100, usps: 100 },
    outForDeliveryFloor: {
      callsPerDelivered: 14.7,
      startMinutes: { ups: 650, fedex: 610, usps: 595 },
      lateShare: 0.049,
    },
    beforeScanFloor: { callsPerDelivered: 2.9, firstLooks: 1.04, watchedDays: 1.9 },
    denseStartRate: { callsPerLatePoint: 1, share: 0.04 },
  } as Metrics;
  const runTime = { wallSeconds: 1, cpuSeconds: 1, loadAverage: 0 };
  const calls = (m: Metrics) => checkTargets(m, [m], runTime).find((c) => c.target.includes('carrier calls'))!;

  it('says how many points of late share the gap would take, at the measured exchange rate', () => {
    const check = calls(world);
    expect(check.pass).toBe(false);
    expect(check.why).toContain('saves 1.00 calls per point of late share here');
    expect(check.why).toContain('≈ 3.0 more points late, with 0.30 left');
    expect(check.why).toContain('no lever measured reaches ≤ 25 in this world with p95 ≤ 15 min held');
  });

  it('says nothing of the kind when the target is met', () => {
    expect(calls({ ...world, callsPerDelivered: 24 }).why).not.toContain('not reachable');
  });
});
