import type { Kysely } from 'kysely';

/**
 * When the tracked package's order was placed (`trackings.order_placed_at`), copied when tracking
 * starts so the tracking module can tell an earlier shipment's delivery under a reused or mistyped
 * number from this gift's (src/tracking/earlier-shipment.ts) without reading the orders' table. Null on
 * rows from before this migration: they are judged as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').addColumn('order_placed_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').dropColumn('order_placed_at').execute();
}
