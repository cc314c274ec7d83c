import { describe, expect, it } from 'vitest';
import type { Journey } from '../../bench/tracking/journey.ts';
import { adaptiveSchedule } from '../../bench/tracking/policies.ts';
import { simulate } from '../../bench/tracking/simulate.ts';

const HOUR = 3_600_000;
const start = Date.parse('2026-04-06T00:00:00Z');

/** A UPS package scanned in transit at once, out for delivery at 08:00 on day 3, delivered at 08:05. */
function journey(id: number, outForDeliveryScan = true): Journey {
  const ofd = start + 2 * 24 * HOUR + 8 * HOUR;
  const delivered = ofd + 5 * 60_000;
  return {
    id,
    carrier: 'ups',
    destinationOffsetMinutes: 0,
    offsetKnown: true,
    startedAt: start,
    kind: 'delivered',
    snapshots: [
      { at: start, status: 'pre_transit', estimatedDeliveryAt: null, windowStartAt: null },
      { at: start + HOUR, status: 'in_transit', estimatedDeliveryAt: null, windowStartAt: null },
      ...(outForDeliveryScan
        ? [{ at: ofd, status: 'out_for_delivery' as const, estimatedDeliveryAt: null, windowStartAt: null }]
        : []),
      { at: delivered, status: 'delivered', estimatedDeliveryAt: null, windowStartAt: null },
    ],
    deliveredAt: delivered,
    traits: { window: 'none', outForDeliveryScan, estimate: 'none' },
  };
}

const fleet = [journey(0), journey(1, false), journey(2)];
const options = { errorRate: 0, learnDeliveryHours: false } as const;

describe('the Shopify-fed simulation (simulate.ts shopifyFeed)', () => {
  it("sees a delivery by Shopify's delivered event, the feed's delay after it, and stops tracking there", () => {
    const fed = simulate(fleet, adaptiveSchedule, {
      ...options,
      shopifyFeed: { minDelayMs: 600_000, maxDelayMs: 600_000 },
    });
    // Each delivery is seen by a poll or by Shopify's event 10 min later, whichever is first: never later.
    for (const lag of fed.lagMs) expect(lag).toBeLessThanOrEqual(10 * 60_000);
    // One stop per package, however many events and entries it had.
    expect(fed.stops).toEqual({ delivered: 3, expired: 0, returned: 0 });
    expect(fed.unfinished).toBe(0);
  });

  it('leaves the simulation as it was without the feed, and the feed never delivers before the carrier does', () => {
    const plain = simulate(fleet, adaptiveSchedule, options);
    expect(plain.stops).toEqual({ delivered: 3, expired: 0, returned: 0 });
    // Without an out-for-delivery scan the plain schedule sees this one late; the feed's event bounds it.
    expect(plain.lagMs[1]!).toBeGreaterThan(10 * 60_000);
    const late = simulate(fleet, adaptiveSchedule, {
      ...options,
      shopifyFeed: { minDelayMs: 6 * HOUR, maxDelayMs: 6 * HOUR },
    });
    for (const lag of late.lagMs) expect(lag).toBeGreaterThanOrEqual(0);
  });
});
