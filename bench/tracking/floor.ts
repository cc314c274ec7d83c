/**
 * The least any polling schedule can spend while packages are out for delivery, in a given world, if
 * all it knows is the clock: no carrier window, only that the package is out for delivery today. It
 * turns "≤ 25 calls per delivered package" from a target into a question the model can answer: if
 * even the floor is above it, no tuning of schedule.ts reaches it in that world, and the lever is
 * information (windows, push), not cadence.
 *
 * Why a floor has this shape: a look costs the same whenever it happens, and a delivery seen more than
 * 15 min late costs the same however late. So minimising looks subject to a late share makes the
 * cadence all-or-nothing — every 15 min where deliveries are likely, nothing where they are rare —
 * and, delivery times having one peak, "nothing" is the start of the day. The floor tries every start
 * from 08:00 to 13:00 and keeps the cheapest whose late deliveries fit the budget.
 *
 * It is generous to the schedule (a true lower bound): seeing the scan is free, packages with a window
 * or without a scan cost nothing, and the late budget is everything the other causes leave of the 5%.
 */
import type { Journey } from './journey.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const CADENCE_MINUTES = 15;

export interface OutForDeliveryFloor {
  /** Looks per delivered package (all deliveries of the world count in the denominator). */
  callsPerDelivered: number;
  /** Local minute of day the cheapest cadence starts at. */
  startMinute: number;
  /** Share of deliveries it sees more than 15 min late. */
  lateShare: number;
}

export function outForDeliveryFloor(fleet: readonly Journey[], lateBudgetShare: number): OutForDeliveryFloor {
  const delivered = fleet.filter((journey) => journey.deliveredAt !== null).length;
  // Same-day out-for-delivery → delivery, in local minutes, for packages without a window on the day.
  const days: Array<{ scan: number; delivery: number }> = [];
  for (const journey of fleet) {
    if (journey.kind !== 'delivered' || journey.deliveredAt === null || journey.traits.window !== 'none') continue;
    const offset = journey.destinationOffsetMinutes * MINUTE;
    const localDay = (at: number) => Math.floor((at + offset) / DAY);
    const localMinute = (at: number) => ((((at + offset) % DAY) + DAY) % DAY) / MINUTE;
    const deliveredAt = journey.deliveredAt;
    const scan = journey.snapshots.find(
      (snapshot) => snapshot.status === 'out_for_delivery' && localDay(snapshot.at) === localDay(deliveredAt),
    );
    if (scan) days.push({ scan: localMinute(scan.at), delivery: localMinute(deliveredAt) });
  }

  let best: OutForDeliveryFloor = { callsPerDelivered: Number.POSITIVE_INFINITY, startMinute: 8 * 60, lateShare: 0 };
  for (let start = 8 * 60; start <= 13 * 60; start += 5) {
    let calls = 0;
    let late = 0;
    for (const { scan, delivery } of days) {
      const from = Math.max(scan, start);
      if (delivery < from) {
        // Delivered before the cadence began: the first look sees it.
        calls += 1;
        if (from - delivery > CADENCE_MINUTES) late++;
      } else {
        // Looks at from, from + 15 min, …: the first one at or after the delivery sees it.
        calls += Math.ceil((delivery - from) / CADENCE_MINUTES) + 1;
      }
    }
    const floor = { callsPerDelivered: calls / delivered, startMinute: start, lateShare: late / delivered };
    if (floor.lateShare <= lateBudgetShare && floor.callsPerDelivered < best.callsPerDelivered) best = floor;
  }
  return best;
}
