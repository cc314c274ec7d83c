import { describe, expect, it } from 'vitest';
import { beforeScanFloor, outForDeliveryFloor, watchedDays } from '../../bench/tracking/floor.ts';
import type { Journey } from '../../bench/tracking/journey.ts';

const DAY = '2026-04-07';
const at = (hhmm: string) => Date.parse(`${DAY}T${hhmm}:00Z`);

/** A package out for delivery at `scan` and delivered at `delivered`, on a UTC clock, without a window. */
function journey(
  id: number,
  scan: string,
  delivered: string,
  window: Journey['traits']['window'] = 'none',
  carrier: Journey['carrier'] = 'ups',
): Journey {
  return {
    id,
    carrier,
    destinationOffsetMinutes: 0,
    offsetKnown: true,
    startedAt: at('00:00') - 86_400_000,
    kind: 'delivered',
    snapshots: [
      { at: at('00:00') - 86_400_000, status: 'in_transit', estimatedDeliveryAt: null, windowStartAt: null },
      { at: at(scan), status: 'out_for_delivery', estimatedDeliveryAt: null, windowStartAt: null },
      { at: at(delivered), status: 'delivered', estimatedDeliveryAt: null, windowStartAt: null },
    ],
    deliveredAt: at(delivered),
    traits: { window, outForDeliveryScan: true, estimate: 'on_time' },
  };
}

describe('outForDeliveryFloor', () => {
  const fleet = [journey(1, '07:00', '09:00'), journey(2, '07:00', '11:00')];

  it('starts the 15-min cadence as late as keeps every delivery within 15 min', () => {
    // From 09:15: the 09:00 delivery is seen 15 min late (not more) by the first look; the 11:00 one by
    // the eighth (09:15, 09:30 … 11:00 — at or after it). 9 looks for 2 deliveries.
    expect(outForDeliveryFloor(fleet, 0)).toMatchObject({ callsPerDelivered: 9 / 2, lateShare: 0 });
    expect(outForDeliveryFloor(fleet, 0).startMinutes.ups).toBe(9 * 60 + 15);
  });

  it('gives up early deliveries only as far as the late budget allows', () => {
    expect(outForDeliveryFloor(fleet, 0.5)).toMatchObject({ callsPerDelivered: 1, lateShare: 0.5 });
    expect(outForDeliveryFloor(fleet, 0.5).startMinutes.ups).toBe(11 * 60);
  });

  it('costs nothing for packages with a carrier window (it is a floor for clock-only schedules)', () => {
    expect(outForDeliveryFloor([...fleet, journey(3, '07:00', '09:00', 'inside')], 0)).toMatchObject({
      callsPerDelivered: 9 / 3,
    });
  });

  it('lets each carrier start when its own deliveries begin', () => {
    // USPS delivers at 09:00, UPS at 13:00: one start for both would look at UPS from 09:00 on.
    const mixed = [journey(1, '07:00', '09:00', 'none', 'usps'), journey(2, '07:00', '13:00', 'none', 'ups')];
    const floor = outForDeliveryFloor(mixed, 0);
    expect(floor.startMinutes.usps).toBeLessThanOrEqual(9 * 60);
    expect(floor.startMinutes.ups).toBeGreaterThan(9 * 60);
    // Each delivery seen by the look at it (the start may sit up to 15 min before it): 1–2 looks each.
    expect(floor.callsPerDelivered).toBeLessThanOrEqual(2);
  });
});

describe('beforeScanFloor', () => {
  const MONDAY = Date.parse('2026-04-06T00:00:00Z');
  const DAY_MS = 86_400_000;
  /** Local (UTC) noon of the n-th day after Monday 2026-04-06. */
  const day = (n: number, hour = 12) => MONDAY + n * DAY_MS + hour * 3_600_000;

  /** Label on Monday; first scan on `scanDay` (19:00) with an estimate (or none); out for delivery and delivered on `deliveryDay`. */
  function trip(
    scanDay: number,
    estimateDay: number | null,
    deliveryDay: number,
    extra: Journey['snapshots'] = [],
  ): Journey {
    const estimate = estimateDay === null ? null : day(estimateDay, 23);
    return {
      id: 1,
      carrier: 'ups',
      destinationOffsetMinutes: 0,
      offsetKnown: true,
      startedAt: day(0, 15),
      kind: 'delivered',
      snapshots: [
        { at: day(0, 15), status: 'pre_transit', estimatedDeliveryAt: null, windowStartAt: null },
        { at: day(scanDay, 19), status: 'in_transit', estimatedDeliveryAt: estimate, windowStartAt: null },
        ...extra,
        {
          at: day(deliveryDay, 7),
          status: 'out_for_delivery',
          estimatedDeliveryAt: day(deliveryDay, 23),
          windowStartAt: null,
        },
        { at: day(deliveryDay, 14), status: 'delivered', estimatedDeliveryAt: null, windowStartAt: null },
      ],
      deliveredAt: day(deliveryDay, 14),
      traits: { window: 'none', outForDeliveryScan: true, estimate: estimateDay === null ? 'none' : 'on_time' },
    };
  }

  it('needs no look before a next-day delivery scanned on the label day', () => {
    expect(watchedDays(trip(0, 1, 1))).toBe(0);
  });

  it('watches every day the label waits for its scan, and the day before the estimate', () => {
    // Unscanned Tuesday and Wednesday (scanned Wednesday evening); estimate Saturday, so Friday is a
    // possible early day; Thursday is not.
    expect(watchedDays(trip(2, 5, 5))).toBe(3);
  });

  it('watches every day when there is no estimate, but never a Sunday', () => {
    // Scanned Monday evening, no estimate, delivered the next Tuesday: Tuesday–Saturday and Monday.
    expect(watchedDays(trip(0, null, 8))).toBe(6);
  });

  it('keeps watching a package that is late without notice', () => {
    // Estimate Thursday, delivered Friday: Wednesday (early) and Thursday (estimated day).
    expect(watchedDays(trip(0, 3, 4))).toBe(2);
  });

  it('uses an estimate the carrier moved before the day began', () => {
    // Estimate Thursday moved to Saturday on Tuesday evening: only Friday is watched.
    const moved = [
      { at: day(1, 20), status: 'in_transit' as const, estimatedDeliveryAt: day(5, 23), windowStartAt: null },
    ];
    expect(watchedDays(trip(0, 3, 5, moved))).toBe(1);
  });

  it('counts a first look for every package, delivered or not', () => {
    const lost: Journey = { ...trip(0, 1, 1), kind: 'never_scanned', deliveredAt: null };
    expect(beforeScanFloor([trip(2, 5, 5), lost])).toEqual({ callsPerDelivered: 2 + 3, firstLooks: 2, watchedDays: 3 });
  });
});
