import type { Kysely } from 'kysely';

/**
 * Shopify orders cancelled before Doorstep saw them, written by the shopify module. Shopify does not
 * promise the order of its webhooks: an orders/cancelled processed before the order's orders/create
 * found nothing to cancel, and the create then made a live video order (its record link e-mailed, its
 * video sent on its trigger). The cancellation is remembered here, and a later create makes none.
 * Erased with the shop (shop/redact).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shopify_cancelled_orders')
    .addColumn('shop', 'text', (column) => column.notNull())
    .addColumn('shopify_order_id', 'text', (column) => column.notNull())
    .addColumn('cancelled_at', 'timestamptz', (column) => column.notNull())
    .addPrimaryKeyConstraint('shopify_cancelled_orders_pkey', ['shop', 'shopify_order_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shopify_cancelled_orders').execute();
}
