import { describe, expect, it } from 'vitest';
import type { Journey } from '../../bench/tracking/journey.ts';
import { adaptiveSchedule } from '../../bench/tracking/policies.ts';
import { pollPhase, simulate } from '../../bench/tracking/simulate.ts';
import { newTrackingState, type TrackingState } from '../../src/tracking/schedule.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const start = Date.parse('2026-04-06T00:00:00Z'); // a Monday; the destination is on UTC

/** A UPS package in transit from 20:00 on day 0, estimated for day 2, delivered on `deliveryDay` at 13:00. */
function journey(deliveryDay: number, outForDeliveryScan: boolean): Journey {
  const estimate = start + 2 * DAY + 23 * HOUR;
  const delivered = start + deliveryDay * DAY + 13 * HOUR;
  return {
    id: 0,
    carrier: 'ups',
    destinationOffsetMinutes: 0,
    offsetKnown: true,
    startedAt: start,
    kind: 'delivered',
    snapshots: [
      { at: start, status: 'pre_transit', estimatedDeliveryAt: null, windowStartAt: null },
      { at: start + 20 * HOUR, status: 'in_transit', estimatedDeliveryAt: estimate, windowStartAt: null },
      ...(outForDeliveryScan
        ? [
            {
              at: delivered - 5 * HOUR,
              status: 'out_for_delivery' as const,
              estimatedDeliveryAt: estimate,
              windowStartAt: null,
            },
          ]
        : []),
      { at: delivered, status: 'delivered', estimatedDeliveryAt: estimate, windowStartAt: null },
    ],
    deliveredAt: delivered,
    traits: { window: 'none', outForDeliveryScan, estimate: deliveryDay === 2 ? 'on_time' : 'late' },
  };
}

function inTransit(at: number): TrackingState {
  return {
    ...newTrackingState(new Date(start), 0),
    status: 'in_transit',
    lastPolledAt: new Date(at - HOUR),
    lastChangedAt: new Date(start + 20 * HOUR),
    estimatedDeliveryAt: new Date(start + 2 * DAY + 23 * HOUR),
  };
}

describe('where the calls go (simulate.ts pollPhase)', () => {
  it("tells a late package's looks on its estimated day from those on a delivery without a scan", () => {
    const onTime = journey(2, false);
    const late = journey(3, false);
    const estimatedDayNoon = start + 2 * DAY + 12 * HOUR;
    expect(pollPhase(inTransit(start + DAY + 12 * HOUR), late, start + DAY + 12 * HOUR)).toBe(
      'in transit, days before the estimate',
    );
    expect(pollPhase(inTransit(estimatedDayNoon), onTime, estimatedDayNoon)).toBe(
      'in transit, on its delivery day (no scan seen yet)',
    );
    expect(pollPhase(inTransit(estimatedDayNoon), late, estimatedDayNoon)).toBe(
      'in transit, on or after the estimate, not delivered that day',
    );
  });

  it('names first looks, retries, and out for delivery with and without a window', () => {
    const j = journey(2, true);
    expect(pollPhase(newTrackingState(new Date(start), 0), j, start)).toBe('first look');
    const at = start + 2 * DAY + 10 * HOUR;
    expect(pollPhase({ ...inTransit(at), consecutiveErrors: 1 }, j, at)).toBe('retry of a failed look');
    const out = { ...inTransit(at), status: 'out_for_delivery' as const };
    expect(pollPhase(out, j, at)).toBe('out for delivery, without a window');
    expect(pollPhase({ ...out, estimatedWindowStartAt: new Date(at + HOUR) }, j, at)).toBe(
      'out for delivery, with a window',
    );
  });

  it('counts every poll of a simulation in exactly one phase', () => {
    const result = simulate([journey(2, true), journey(3, false), journey(2, false)], adaptiveSchedule, {
      errorRate: 0,
      learnDeliveryHours: false,
    });
    const phases = Object.values(result.pollsByPhase).reduce((a, b) => a + b, 0);
    expect(phases).toBe(result.polls);
    expect(result.pollsByPhase['in transit, on or after the estimate, not delivered that day']).toBeGreaterThan(0);
    expect(result.pollsByPhase['out for delivery, without a window']).toBeGreaterThan(0);
  });
});
