import { sql, type Kysely } from 'kysely';

/**
 * The order outbox (`src/orders/outbox.ts`): one row per domain event and subscriber, written in the
 * transaction that changes the order and deleted in the transaction that handles it. A row that is
 * here is an event that subscriber has not handled yet, so a crash between the two can delay a
 * reaction but never lose it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('order_outbox')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('subscriber', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('available_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();
  // "Is an earlier event of this order still waiting for this subscriber?" — asked for every event.
  await sql`create index order_outbox_per_order on order_outbox (subscriber, order_id, seq)`.execute(db);
  await sql`create index order_outbox_due on order_outbox (available_at, seq)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('order_outbox').execute();
}
