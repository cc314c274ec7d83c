/**
 * The fleet's own delivery hours, per carrier: when in the destination's local day its packages are
 * delivered, learned from the deliveries the fleet has seen. Pure: the counts come in (stored by the
 * caller), an answer for the schedule goes out.
 *
 * Why the schedule wants it: once a package is out for delivery without a carrier window, a look every
 * 15 min from the out-for-delivery scan (~07:15) to the stop (~13:00–14:30) is most of its calls, and
 * a look at 08:30 almost never finds a delivery. Where deliveries are rare, a look costs as much as
 * anywhere but sees almost nothing, so the cheapest cadence for a given share of late deliveries is
 * "nothing, then every 15 min" (bench/tracking/floor.ts argues it): the dense cadence starts where the
 * fleet's early deliveries stop being rare.
 */
import type { CarrierCode } from '../carriers/carrier-code.ts';
import { DELIVERY_CLOSES_AT_MINUTE, DELIVERY_OPENS_AT_MINUTE } from './schedule-hours.ts';

/** Deliveries are counted in local 15-min slots (96 a day): fine enough for a 15-min cadence, small to store. */
export const SLOT_MINUTES = 15;
export const SLOTS_PER_DAY = (24 * 60) / SLOT_MINUTES;

/**
 * Share of a carrier's deliveries the schedule may leave before its dense cadence (seen at its start,
 * so up to a few hours late). Small because the 5% of deliveries p95 ≤ 15 min allows to be late are
 * mostly taken already: pickups (~1.7%), deliveries without an out-for-delivery scan (~1.6%), deliveries
 * before a carrier's window (~0.6%), failed looks (bench/tracking/RESULTS.md).
 */
export const RARE_EARLY_SHARE = 0.005;

/**
 * What is assumed before the fleet has seen anything: deliveries spread evenly over the delivery hours
 * (08:00–21:00), as many as this many observed ones. With it alone the "rare" quantile falls in the
 * first slot, so a cold start polls densely from the scan, as the schedule did before it learned; a few
 * hundred deliveries of a carrier outweigh it.
 */
export const PRIOR_DELIVERIES = 100;

/** Deliveries per local slot of the day (length SLOTS_PER_DAY). */
export type SlotCounts = readonly number[];

export interface LearnedDeliveryHours {
  /** Local minute of the day from which a package out for delivery without a window is polled densely. */
  denseFromMinute: number;
  /** Deliveries the answer rests on (without the prior). */
  observed: number;
}

/** The slot a delivery falls in, from its instant and the destination's offset (minutes east of UTC). */
export function deliverySlot(deliveredAtMs: number, utcOffsetMinutes: number): number {
  const localMs = deliveredAtMs + utcOffsetMinutes * 60_000;
  const minute = (localMs - Math.floor(localMs / 86_400_000) * 86_400_000) / 60_000;
  return Math.min(SLOTS_PER_DAY - 1, Math.floor(minute / SLOT_MINUTES));
}

/** The prior (see PRIOR_DELIVERIES) as slot counts. */
export function priorCounts(): number[] {
  const first = DELIVERY_OPENS_AT_MINUTE / SLOT_MINUTES;
  const last = DELIVERY_CLOSES_AT_MINUTE / SLOT_MINUTES;
  const counts = new Array<number>(SLOTS_PER_DAY).fill(0);
  for (let slot = first; slot < last; slot++) counts[slot] = PRIOR_DELIVERIES / (last - first);
  return counts;
}

/**
 * The start of the dense cadence: the first slot at which the deliveries before it reach
 * `rareShare` of all (observed + prior). Never before the delivery hours open.
 */
export function learnDeliveryHours(observed: SlotCounts, rareShare = RARE_EARLY_SHARE): LearnedDeliveryHours {
  if (observed.length !== SLOTS_PER_DAY) throw new Error(`expected ${SLOTS_PER_DAY} slot counts`);
  const prior = priorCounts();
  let seen = 0;
  const counts = prior.map((p, slot) => {
    const n = observed[slot]!;
    if (!Number.isFinite(n) || n < 0) throw new Error('slot counts must be finite and not negative');
    seen += n;
    return p + n;
  });
  const total = counts.reduce((a, b) => a + b, 0);
  let before = 0;
  let slot = 0;
  for (; slot < SLOTS_PER_DAY; slot++) {
    if (before + counts[slot]! > rareShare * total) break;
    before += counts[slot]!;
  }
  return { denseFromMinute: Math.max(DELIVERY_OPENS_AT_MINUTE, slot * SLOT_MINUTES), observed: seen };
}

/** One carrier's learned hours, as the schedule takes them. */
export type DeliveryHoursByCarrier = Partial<Record<CarrierCode, LearnedDeliveryHours>>;
