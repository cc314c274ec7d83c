import { describe, expect, it } from 'vitest';
import { outForDeliveryFloor } from '../../bench/tracking/floor.ts';
import type { Journey } from '../../bench/tracking/journey.ts';

const DAY = '2026-04-07';
const at = (hhmm: string) => Date.parse(`${DAY}T${hhmm}:00Z`);

/** A package out for delivery at `scan` and delivered at `delivered`, on a UTC clock, without a window. */
function journey(id: number, scan: string, delivered: string, window: Journey['traits']['window'] = 'none'): Journey {
  return {
    id,
    carrier: 'ups',
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
    expect(outForDeliveryFloor(fleet, 0)).toEqual({ callsPerDelivered: 9 / 2, startMinute: 9 * 60 + 15, lateShare: 0 });
  });

  it('gives up early deliveries only as far as the late budget allows', () => {
    expect(outForDeliveryFloor(fleet, 0.5)).toEqual({ callsPerDelivered: 1, startMinute: 11 * 60, lateShare: 0.5 });
  });

  it('costs nothing for packages with a carrier window (it is a floor for clock-only schedules)', () => {
    expect(outForDeliveryFloor([...fleet, journey(3, '07:00', '09:00', 'inside')], 0)).toMatchObject({
      callsPerDelivered: 9 / 3,
    });
  });
});
