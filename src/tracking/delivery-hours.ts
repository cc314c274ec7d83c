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
import { DELIVERY_CLOSES_AT_MINUTE, DELIVERY_OPENS_AT_MINUTE } from './schedule-hours.ts';

/** Deliveries are counted in local 15-min slots (96 a day): fine enough for a 15-min cadence, small to store. */
export const SLOT_MINUTES = 15;
export const SLOTS_PER_DAY = (24 * 60) / SLOT_MINUTES;

/**
 * Share of a carrier's deliveries the schedule may leave before its dense cadence (seen at its start,
 * so up to a few hours late). p95 ≤ 15 min lets 5% of deliveries be late; the rest of that budget goes
 * to deliveries without an out-for-delivery scan (~1.6% at the estimated day's 30/60-min cadence),
 * deliveries before a carrier's window (~0.6%) and failed looks (~0.3%), and some is left as margin
 * across fleets (bench/tracking/RESULTS.md, seeds 42, 7, 11). Pickups take none once their hours are
 * learned (below).
 */
export const RARE_EARLY_SHARE = 0.04;

/**
 * A flat prior over the delivery hours (08:00–21:30), worth this many observed deliveries: it pulls the
 * learned start of a young fleet towards the opening (the safe side); a few thousand deliveries of a
 * carrier outweigh it.
 */
export const PRIOR_DELIVERIES = 100;

/**
 * Below this many observed deliveries of a carrier the schedule does not trust the quantile and polls
 * densely from the scan (as before it learned).
 */
export const MIN_DELIVERIES = 200;

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
  if (seen < MIN_DELIVERIES) return { denseFromMinute: DELIVERY_OPENS_AT_MINUTE, observed: seen };
  return { denseFromMinute: Math.max(DELIVERY_OPENS_AT_MINUTE, slot * SLOT_MINUTES), observed: seen };
}

/**
 * A package held at a pickup point is collected when the recipient comes, during the point's opening
 * hours: a look every hour or three sees most collections more than 15 min late (they were a third of
 * all late deliveries). Once the fleet has seen this many collections, the schedule watches pickups every
 * 15 min inside the hours where collections happen, and only keeps its ≤ 12 h looks outside them.
 */
export const MIN_PICKUPS = 50;
/** Collections left outside the learned pickup hours at each end. */
export const PICKUP_TAIL_SHARE = 0.005;

/**
 * Until the fleet has seen MIN_PICKUPS collections of a carrier, the hours pickup points keep: Post Offices open around 09:00; UPS Access Points and FedEx
 * OnSite counters (pharmacies, groceries) close 19:00–21:00. Issue 30: the hourly looks used before
 * saw most collections over 15 min late, ~2% of all deliveries in the world family (pickups are rare,
 * so the fleet learns their hours slowly), enough on its own to break p95 in a tenth of its worlds.
 * A collection after 20:00 is seen by the 21:30 watch look.
 */
export const UNLEARNED_PICKUP_HOURS: Readonly<Pick<LearnedPickupHours, 'fromMinute' | 'untilMinute'>> = {
  fromMinute: 9 * 60,
  untilMinute: 20 * 60,
};

export interface LearnedPickupHours {
  /** Local minutes of the day between which pickups are watched densely. */
  fromMinute: number;
  untilMinute: number;
  observed: number;
}

/** The hours in which a carrier's pickups are collected, or null while the fleet has seen too few. */
export function learnPickupHours(observed: SlotCounts, tailShare = PICKUP_TAIL_SHARE): LearnedPickupHours | null {
  if (observed.length !== SLOTS_PER_DAY) throw new Error(`expected ${SLOTS_PER_DAY} slot counts`);
  let total = 0;
  for (const n of observed) {
    if (!Number.isFinite(n) || n < 0) throw new Error('slot counts must be finite and not negative');
    total += n;
  }
  if (total < MIN_PICKUPS) return null;
  let from = 0;
  for (let before = 0; from < SLOTS_PER_DAY; from++) {
    if (before + observed[from]! > tailShare * total) break;
    before += observed[from]!;
  }
  let until = SLOTS_PER_DAY;
  for (let after = 0; until > from + 1; until--) {
    if (after + observed[until - 1]! > tailShare * total) break;
    after += observed[until - 1]!;
  }
  return { fromMinute: from * SLOT_MINUTES, untilMinute: until * SLOT_MINUTES, observed: total };
}

/** What the schedule learns from the fleet about one carrier. */
export interface LearnedHours {
  delivery: LearnedDeliveryHours;
  pickup: LearnedPickupHours | null;
}

/** Both, from the counts of deliveries after an out-for-delivery scan and of pickup collections. */
export function learnHours(deliveries: SlotCounts, pickups: SlotCounts, rareShare = RARE_EARLY_SHARE): LearnedHours {
  return { delivery: learnDeliveryHours(deliveries, rareShare), pickup: learnPickupHours(pickups) };
}
