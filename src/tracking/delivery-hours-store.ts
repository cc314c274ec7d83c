/**
 * Where the fleet's delivery hours live (table `carrier_delivery_hours`, migration 025) and how the
 * poller reads them: a delivery the poller sees after an out-for-delivery scan adds one to its carrier's
 * local 15-min slot, in the transaction that records it; the schedule gets the learned start from a
 * per-process cache refreshed every few minutes (delivery-hours.ts does the arithmetic).
 */
import { sql } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { Db } from '../db/database.ts';
import { utcOffsetMinutesAt } from '../i18n/dates.ts';
import { SLOTS_PER_DAY, deliverySlot, learnHours, type LearnedHours } from './delivery-hours.ts';

/** A delivery after an out-for-delivery scan, or a collection from a pickup point. */
export type DeliveryRound = 'delivery' | 'pickup';

/**
 * Counts one delivery in its local slot. Only deliveries whose destination zone is known say anything
 * about local hours; the caller says which round it was.
 */
export async function recordDeliveryTime(
  db: Db,
  carrier: CarrierCode,
  round: DeliveryRound,
  deliveredAt: Date,
  destinationTimeZone: string,
): Promise<void> {
  const offset = utcOffsetMinutesAt(destinationTimeZone, deliveredAt);
  if (offset === undefined) return;
  await db
    .insertInto('carrier_delivery_hours')
    .values({ carrier, round, slot: deliverySlot(deliveredAt.getTime(), offset), deliveries: 1 })
    .onConflict((c) =>
      c.columns(['carrier', 'round', 'slot']).doUpdateSet({ deliveries: sql`carrier_delivery_hours.deliveries + 1` }),
    )
    .execute();
}

/** A carrier's counts, one per slot, of each round. */
export async function readSlotCounts(db: Db, carrier: CarrierCode): Promise<Record<DeliveryRound, number[]>> {
  const rows = await db
    .selectFrom('carrier_delivery_hours')
    .select(['round', 'slot', 'deliveries'])
    .where('carrier', '=', carrier)
    .execute();
  const counts: Record<DeliveryRound, number[]> = {
    delivery: new Array<number>(SLOTS_PER_DAY).fill(0),
    pickup: new Array<number>(SLOTS_PER_DAY).fill(0),
  };
  for (const row of rows) counts[row.round][row.slot] = Number(row.deliveries);
  return counts;
}

/** Hours move over weeks, not minutes: a process re-reads them this often. */
export const DELIVERY_HOURS_REFRESH_MS = 10 * 60_000;

/** Per-process cache of each carrier's learned hours. A failed read keeps what it had (or the prior). */
export class DeliveryHoursCache {
  private readonly entries = new Map<CarrierCode, { at: number; hours: LearnedHours }>();

  constructor(
    private readonly db: Db,
    private readonly refreshMs = DELIVERY_HOURS_REFRESH_MS,
  ) {}

  async get(carrier: CarrierCode, now: Date): Promise<LearnedHours> {
    const entry = this.entries.get(carrier);
    if (entry && now.getTime() - entry.at < this.refreshMs) return entry.hours;
    let hours: LearnedHours;
    try {
      const counts = await readSlotCounts(this.db, carrier);
      hours = learnHours(counts.delivery, counts.pickup);
    } catch {
      const none = new Array<number>(SLOTS_PER_DAY).fill(0);
      hours = entry?.hours ?? learnHours(none, none);
    }
    this.entries.set(carrier, { at: now.getTime(), hours });
    return hours;
  }
}
