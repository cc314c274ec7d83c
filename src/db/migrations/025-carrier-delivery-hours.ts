import { sql, type Kysely } from 'kysely';

/**
 * Issue 11, "the fleet's own observed delivery-time distribution per carrier": how many deliveries each
 * carrier made in each local 15-min slot of the day (src/tracking/delivery-hours.ts), for delivery rounds
 * (delivered after an out-for-delivery scan) and for collections from a pickup point. At most 2 × 96
 * rows a carrier, so reading a carrier's hours is one primary-key range read; a delivery adds one to its
 * slot.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_delivery_hours')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('round', 'text', (c) => c.notNull())
    .addColumn('slot', 'smallint', (c) => c.notNull())
    .addColumn('deliveries', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('carrier_delivery_hours_pkey', ['carrier', 'round', 'slot'])
    .addCheckConstraint('carrier_delivery_hours_slot', sql`slot >= 0 and slot < 96`)
    .addCheckConstraint('carrier_delivery_hours_round', sql`round in ('delivery', 'pickup')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('carrier_delivery_hours').execute();
}
