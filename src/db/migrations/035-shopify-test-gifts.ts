import type { Kysely } from 'kysely';

/**
 * The shops' test gifts (issue 28, the setup guide's last step: "Send a test gift to yourself"),
 * written by the shopify module: which orders were the shop's own test, so the step is ticked from
 * the database and the order page can say it is a test. Erased with the order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shopify_test_gifts')
    .addColumn('order_id', 'text', (column) => column.primaryKey().references('orders.id').onDelete('cascade'))
    .addColumn('shop', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('shopify_test_gifts_shop').on('shopify_test_gifts').column('shop').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shopify_test_gifts').execute();
}
