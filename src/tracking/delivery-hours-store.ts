/**
 * Where the fleet's delivery hours live (table `carrier_delivery_hours`, migration 025) and how the
 * poller reads them: a delivery the poller sees after an out-for-delivery scan adds one to its carrier's
 * local 15-min slot, in the transaction that records it; the schedule gets the learned start from a
 * per-process cache refreshed every few minutes (delivery-hours.ts does the arithmetic).
 */
import { sql } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { Db } from '../db/database.ts';
import { utcOffsetMinutesAt } from './destination-time-zone.ts';
import { SLOTS_PER_DAY, deliverySlot, learnDeliveryHours, type LearnedDeliveryHours } from './delivery-hours.ts';

/**
 * Counts one delivery in its local slot. Only deliveries whose destination zone is known say anything
 * about local hours; the caller passes those seen after an out-for-delivery scan (the population the
 * dense cadence is for — not pickups).
 */
export async function recordDeliveryTime(
  db: Db,
  carrier: CarrierCode,
  deliveredAt: Date,
  destinationTimeZone: string,
): Promise<void> {
  const offset = utcOffsetMinutesAt(destinationTimeZone, deliveredAt);
  if (offset === undefined) return;
  await db
    .insertInto('carrier_delivery_hours')
    .values({ carrier, slot: deliverySlot(deliveredAt.getTime(), offset), deliveries: 1 })
    .onConflict((c) =>
      c.columns(['carrier', 'slot']).doUpdateSet({ deliveries: sql`carrier_delivery_hours.deliveries + 1` }),
    )
    .execute();
}

/** A carrier's counts, one per slot. */
export async function readSlotCounts(db: Db, carrier: CarrierCode): Promise<number[]> {
  const rows = await db
    .selectFrom('carrier_delivery_hours')
    .select(['slot', 'deliveries'])
    .where('carrier', '=', carrier)
    .execute();
  const counts = new Array<number>(SLOTS_PER_DAY).fill(0);
  for (const row of rows) counts[row.slot] = Number(row.deliveries);
  return counts;
}

/** Hours move over weeks, not minutes: a process re-reads them this often. */
export const DELIVERY_HOURS_REFRESH_MS = 10 * 60_000;

/** Per-process cache of each carrier's learned hours. A failed read keeps what it had (or the prior). */
export class DeliveryHoursCache {
  private readonly entries = new Map<CarrierCode, { at: number; hours: LearnedDeliveryHours }>();

  constructor(
    private readonly db: Db,
    private readonly refreshMs = DELIVERY_HOURS_REFRESH_MS,
  ) {}

  async get(carrier: CarrierCode, now: Date): Promise<LearnedDeliveryHours> {
    const entry = this.entries.get(carrier);
    if (entry && now.getTime() - entry.at < this.refreshMs) return entry.hours;
    let hours: LearnedDeliveryHours;
    try {
      hours = learnDeliveryHours(await readSlotCounts(this.db, carrier));
    } catch {
      hours = entry?.hours ?? learnDeliveryHours(new Array<number>(SLOTS_PER_DAY).fill(0));
    }
    this.entries.set(carrier, { at: now.getTime(), hours });
    return hours;
  }
}
