import { sql, type Kysely } from 'kysely';

/**
 * One row per tracked package. `next_poll_at` lives here, in PostgreSQL, rather than as one delayed
 * BullMQ job per package: a million packages cost a million small rows and one index, not a million
 * Redis keys, and claiming due rows in batches (FOR UPDATE SKIP LOCKED) gives carrier batching for
 * free. See docs/tracking.md for the numbers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('trackings')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('tracking_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text')
    .addColumn('description', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_polled_at', 'timestamptz')
    .addColumn('last_changed_at', 'timestamptz')
    .addColumn('last_event_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('estimated_delivery_at', 'timestamptz')
    .addColumn('estimated_window_start_at', 'timestamptz')
    .addColumn('consecutive_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limited_until', 'timestamptz')
    .addColumn('poll_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'timestamptz')
    .addColumn('stopped_reason', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // The claimer's only query: due rows of one carrier, oldest due first. Stopped rows are not indexed.
  await sql`create index trackings_due on trackings (carrier, next_poll_at) where next_poll_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('trackings').execute();
}
