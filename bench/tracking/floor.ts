/**
 * The least any polling schedule must spend per delivered package in a given world, from the journeys
 * alone: if even this floor is above "≤ 25 calls per delivered package", no tuning of schedule.ts can
 * reach it there and the lever is information (windows, push); if it is below, the target is not ruled
 * out and the gap is the schedule's. Two parts, counted on disjoint looks so they add up:
 *
 * - `beforeScanFloor`: the looks before the delivery day that the hard rules force — the first look
 *   (the PUT's validation call, one per package, delivered or not) and, on every day before the package
 *   leaves normal transit on which the world allows a delivery given what a look could have shown, one
 *   look between 08:00 and 20:00 (a delivery at 08:00 must be seen within 12 h).
 * - `outForDeliveryFloor`: the looks on the delivery day once the package is out for delivery, for a
 *   schedule that keeps p95 ≤ 15 min.
 *
 * Both are generous to the schedule (true lower bounds): what the world's model rules out is taken as
 * known, days are counted once however a look falls in them, the delivery day of packages with a
 * window, without a scan, collected from a pickup point or after an exception costs nothing, and so
 * do packages that are never delivered beyond their first look.
 */
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import type { Journey } from './journey.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const CADENCE_MINUTES = 15;
/** The world delivers no sooner than this after the out-for-delivery scan (the truck has to leave). */
const SCAN_TO_FIRST_DELIVERY_MINUTES = 30;
/** Start minutes the floor tries for the dense cadence (local), 08:00–13:00 every 5 min. */
const FIRST_START = 8 * 60;
const LAST_START = 13 * 60;
const START_STEP = 5;

export interface OutForDeliveryFloor {
  /** Looks per delivered package (all deliveries of the world count in the denominator). */
  callsPerDelivered: number;
  /** Local minute of day the cheapest cadence starts at, per carrier. */
  startMinutes: Record<CarrierCode, number>;
  /** Share of deliveries it sees more than 15 min late. */
  lateShare: number;
}

/**
 * Why a floor out for delivery has this shape: a look costs the same whenever it happens, and a
 * delivery seen more than 15 min late costs the same however late. So minimising looks subject to a
 * late share makes the cadence all-or-nothing — every 15 min where deliveries are likely, nothing where
 * they are rare — and, delivery times having one peak, "nothing" is the start of the day. The schedule
 * may know the carrier (and learn its delivery hours from the fleet), so each carrier gets its own
 * start: the floor tries every combination of starts from 08:00 to 13:00 and keeps the cheapest whose
 * late deliveries fit the budget. In the bench's model the region does not move the delivery time, and the
 * scan only bounds it (no delivery within 30 min of it), which the floor uses. Seeing the scan is free;
 * packages with a window cost nothing.
 */
export function outForDeliveryFloor(fleet: readonly Journey[], lateBudgetShare: number): OutForDeliveryFloor {
  const delivered = fleet.filter((journey) => journey.deliveredAt !== null).length;
  // Same-day out-for-delivery → delivery, in local minutes, for packages without a window on the day.
  const days: Record<CarrierCode, Array<{ scan: number; delivery: number }>> = { ups: [], fedex: [], usps: [] };
  for (const journey of fleet) {
    if (journey.kind !== 'delivered' || journey.deliveredAt === null || journey.traits.window !== 'none') continue;
    const offset = journey.destinationOffsetMinutes * MINUTE;
    const localDay = (at: number) => Math.floor((at + offset) / DAY);
    const localMinute = (at: number) => ((((at + offset) % DAY) + DAY) % DAY) / MINUTE;
    const deliveredAt = journey.deliveredAt;
    const scan = journey.snapshots.find(
      (snapshot) => snapshot.status === 'out_for_delivery' && localDay(snapshot.at) === localDay(deliveredAt),
    );
    if (scan) days[journey.carrier].push({ scan: localMinute(scan.at), delivery: localMinute(deliveredAt) });
  }

  const starts: number[] = [];
  for (let start = FIRST_START; start <= LAST_START; start += START_STEP) starts.push(start);
  const options = (carrier: CarrierCode) =>
    starts.map((start) => {
      let calls = 0;
      let late = 0;
      for (const { scan, delivery } of days[carrier]) {
        // Looks before the first possible delivery could see nothing: the cadence starts there at the earliest.
        const from = Math.max(scan + SCAN_TO_FIRST_DELIVERY_MINUTES, start);
        if (delivery < from) {
          // Delivered before the cadence began: the first look sees it.
          calls += 1;
          if (from - delivery > CADENCE_MINUTES) late++;
        } else {
          // Looks at from, from + 15 min, …: the first one at or after the delivery sees it.
          calls += Math.ceil((delivery - from) / CADENCE_MINUTES) + 1;
        }
      }
      return { start, calls, late };
    });
  const ups = options('ups');
  const fedex = options('fedex');
  const usps = options('usps');

  let best: OutForDeliveryFloor = {
    callsPerDelivered: Number.POSITIVE_INFINITY,
    startMinutes: { ups: FIRST_START, fedex: FIRST_START, usps: FIRST_START },
    lateShare: 0,
  };
  const budget = lateBudgetShare * delivered;
  for (const u of ups)
    for (const f of fedex) {
      if (u.late + f.late > budget) continue;
      for (const s of usps) {
        const late = u.late + f.late + s.late;
        const calls = (u.calls + f.calls + s.calls) / delivered;
        if (late <= budget && calls < best.callsPerDelivered)
          best = {
            callsPerDelivered: calls,
            startMinutes: { ups: u.start, fedex: f.start, usps: s.start },
            lateShare: late / delivered,
          };
      }
    }
  return best;
}

export interface BeforeScanFloor {
  /** Looks per delivered package before the delivery day (first looks included). */
  callsPerDelivered: number;
  /** Of which first looks: every package's validation call, per delivered package. */
  firstLooks: number;
  /** Of which days a delivery was possible and had to be looked at, per delivered package. */
  watchedDays: number;
}

/**
 * Which days before the delivery a schedule must look at, whatever it is. The rule it cannot escape:
 * max lag ≤ 12 h for every delivery the world allows, so on a day a delivery is possible (as far as
 * the schedule can know) it looks between 08:00 and 20:00 — a parcel dropped at 08:00 is otherwise
 * seen more than 12 h late. What the schedule can know, generously:
 *
 * - Not scanned yet: a package scanned this evening may come tomorrow (transit ≥ 1 day, scans
 *   17:00–21:30), so every day from the day after the label up to the scan day must be looked at —
 *   the look of the scan day is taken to see the scan, however late it comes.
 * - In transit with an estimate: the world delivers at most `earlyDays` delivery days early (one in
 *   journey.ts, up to the world's earlyWithoutNoticeMaxDays in the family), so days before
 *   that are free; from then on every day is watched until the package leaves normal transit (out for
 *   delivery, delivered, held, exception). The estimate used for a day is the newest one posted before
 *   that day began, even if no look saw it.
 * - In transit without an estimate: any day.
 *
 * Sundays are free (the bench's world delivers none). The delivery day itself is the other floor's.
 */
export function beforeScanFloor(fleet: readonly Journey[], earlyDays = 1): BeforeScanFloor {
  const delivered = fleet.filter((journey) => journey.deliveredAt !== null).length;
  let watched = 0;
  for (const journey of fleet) if (journey.deliveredAt !== null) watched += watchedDays(journey, earlyDays);
  const firstLooks = fleet.length / delivered;
  return { callsPerDelivered: firstLooks + watched / delivered, firstLooks, watchedDays: watched / delivered };
}

const TRANSIT: ReadonlySet<string> = new Set(['not_found', 'pre_transit', 'in_transit']);

/** Days (local, before the package leaves normal transit) on which a look is forced. */
export function watchedDays(journey: Journey, earlyDays = 1): number {
  const offset = journey.destinationOffsetMinutes * MINUTE;
  const localDay = (at: number) => Math.floor((at + offset) / DAY);
  const dayStart = (day: number) => day * DAY - offset;
  const snapshots = journey.snapshots;
  const leaves = snapshots.find((snapshot) => !TRANSIT.has(snapshot.status));
  if (!leaves) return 0;
  const lastDay = localDay(leaves.at) - 1;
  const firstScan = snapshots.find((snapshot) => snapshot.status === 'in_transit');
  const scanDay = firstScan ? localDay(firstScan.at) : Number.POSITIVE_INFINITY;
  let days = 0;
  for (let day = localDay(journey.startedAt) + 1; day <= lastDay; day++) {
    if (isSunday(day)) continue;
    if (day <= scanDay) {
      days++;
      continue;
    }
    // The newest estimate posted before the day began.
    let estimate: number | null = null;
    for (const snapshot of snapshots) {
      if (snapshot.at >= dayStart(day)) break;
      estimate = snapshot.estimatedDeliveryAt;
    }
    if (estimate === null || day >= earliestDelivery(localDay(estimate), earlyDays)) days++;
  }
  return days;
}

/** `earlyDays` delivery days before the estimated one: the earliest the world delivers (1 in journey.ts). */
function earliestDelivery(estimatedDay: number, earlyDays: number): number {
  let day = estimatedDay;
  for (let left = earlyDays; left > 0;) if (!isSunday(--day)) left--;
  return day;
}

/** Local day numbers count from Thursday 1970-01-01. */
function isSunday(day: number): boolean {
  return (((day + 4) % 7) + 7) % 7 === 0;
}
