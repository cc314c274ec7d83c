import { describe, expect, it } from 'vitest';
import {
  MIN_DELIVERIES,
  MIN_PICKUPS,
  PRIOR_DELIVERIES,
  learnPickupHours,
  SLOTS_PER_DAY,
  SLOT_MINUTES,
  deliverySlot,
  learnDeliveryHours,
} from '../../src/tracking/delivery-hours.ts';

const MINUTE = 60_000;

/** Slot counts with `n` deliveries at each of the given local minutes. */
function counts(deliveries: Array<[minute: number, n: number]>): number[] {
  const slots = new Array<number>(SLOTS_PER_DAY).fill(0);
  for (const [minute, n] of deliveries) slots[Math.floor(minute / SLOT_MINUTES)]! += n;
  return slots;
}

describe('learnDeliveryHours', () => {
  it('starts dense polling at the opening of delivery hours until the fleet has seen enough (cold start)', () => {
    expect(learnDeliveryHours(counts([]))).toEqual({ denseFromMinute: 8 * 60, observed: 0 });
    const few = learnDeliveryHours(counts([[14 * 60, MIN_DELIVERIES - 1]]));
    expect(few).toEqual({ denseFromMinute: 8 * 60, observed: MIN_DELIVERIES - 1 });
    expect(learnDeliveryHours(counts([[14 * 60, MIN_DELIVERIES]])).denseFromMinute).toBeGreaterThan(8 * 60);
  });

  it("starts where the fleet's early deliveries stop being rare", () => {
    // 1,000 deliveries: 3 at 08:10, 2 at 09:05, the rest from 11:00 on, plus the prior's 100 spread over
    // 08:00–21:30 (~1.85 a slot). 0.5% of 1,100 is 5.5: the 08:00 slot holds 4.85, the 08:15 slot tips it.
    const fleet = counts([
      [8 * 60 + 10, 3],
      [9 * 60 + 5, 2],
      [11 * 60, 500],
      [14 * 60, 495],
    ]);
    const learned = learnDeliveryHours(fleet, 0.005);
    expect(learned.observed).toBe(1000);
    expect(learned.denseFromMinute).toBe(8 * 60 + 15);
    // 3% (33) is not reached before the 500 at 11:00.
    const lenient = learnDeliveryHours(fleet, 0.03);
    expect(lenient.denseFromMinute).toBe(11 * 60);
  });

  it('lets a few hundred deliveries outweigh the prior', () => {
    const learned = learnDeliveryHours(counts([[13 * 60, 20 * PRIOR_DELIVERIES]]), 0.01);
    // The prior's 100 over 13 h: 1% of 2,100 = 21 is reached after ~2.7 h of prior alone.
    expect(learned.denseFromMinute).toBeGreaterThanOrEqual(10 * 60);
    expect(learned.denseFromMinute).toBeLessThanOrEqual(11 * 60);
  });

  it('refuses counts that are not one a slot, or negative', () => {
    expect(() => learnDeliveryHours([1, 2, 3])).toThrow(/96 slot counts/);
    expect(() => learnDeliveryHours(counts([[600, -1]]))).toThrow(/not negative/);
  });
});

describe('learnPickupHours', () => {
  it('knows nothing until the fleet has seen enough collections', () => {
    expect(learnPickupHours(counts([[12 * 60, MIN_PICKUPS - 1]]))).toBeNull();
  });

  it('covers the slots where collections happen, leaving the rare ones at either end out', () => {
    // 10:00–18:00, 10 a slot (320), plus one at 07:05 and one at 20:40: each end leaves 0.5% (1.6) out.
    const slots = counts([
      [7 * 60 + 5, 1],
      [20 * 60 + 40, 1],
    ]);
    for (let minute = 10 * 60; minute < 18 * 60; minute += 15) slots[minute / 15]! += 10;
    expect(learnPickupHours(slots)).toEqual({ fromMinute: 10 * 60, untilMinute: 18 * 60, observed: 322 });
  });
});

describe('deliverySlot', () => {
  it('counts a delivery in the local 15-min slot of its destination', () => {
    // 18:40 UTC is 13:40 CDT (UTC−5): slot 54 (13:30–13:45).
    expect(deliverySlot(Date.parse('2026-04-14T18:40:00Z'), -300)).toBe(54);
    // 03:10 UTC is 22:10 CDT of the day before.
    expect(deliverySlot(Date.parse('2026-04-14T03:10:00Z'), -300)).toBe(88);
    expect(deliverySlot(Date.parse('2026-04-14T00:00:00Z') - MINUTE, 0)).toBe(95);
  });
});
