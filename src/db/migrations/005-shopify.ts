import { sql, type Kysely } from 'kysely';

/**
 * Shopify: installed shops (with their token pair), webhook receipts (dedupe + replay), the link
 * from a Shopify order's video line items to Doorstep orders, per-fulfillment package state (the
 * multi-package rule and stale-update detection), and customer data exports (compliance).
 * Shopify ids are 64-bit: stored as text. See docs/shopify.md.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shops')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('fallback_delivered', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('carrier_aliases', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('video_product_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('video_variant_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('scopes', 'text')
    // The token pair and both expiries are always written by one statement (never half a pair).
    .addColumn('access_token', 'text')
    .addColumn('access_token_expires_at', 'timestamptz')
    .addColumn('refresh_token', 'text')
    .addColumn('refresh_token_expires_at', 'timestamptz')
    // Held by the one process refreshing this shop's token (refresh tokens rotate: two refreshes race).
    .addColumn('token_refresh_claimed_until', 'timestamptz')
    .addColumn('installed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('uninstalled_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shops_account').on('shops').column('account_id').execute();

  await db.schema
    .createTable('webhook_receipts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('webhook_id', 'text', (c) => c.notNull().unique())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('api_version', 'text')
    .addColumn('triggered_at', 'timestamptz')
    .addColumn('raw_body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('received', 'processed', 'failed')`))
    .addColumn('error', 'text')
    // What processing decided that is worth knowing (e.g. why a line item made no video order).
    .addColumn('note', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .execute();
  await sql`create index webhook_receipts_pending on webhook_receipts (received_at) where status = 'received'`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_receipts_shop')
    .on('webhook_receipts')
    .columns(['shop', 'received_at'])
    .execute();

  await db.schema
    .createTable('shopify_order_links')
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('shopify_order_id', 'text', (c) => c.notNull())
    .addColumn('line_item_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('customer_email', 'text')
    // The last delivery notice put on the order's timeline, so a replay does not repeat it.
    .addColumn('notice', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('shopify_order_links_pk', ['shop', 'shopify_order_id', 'line_item_id'])
    .execute();
  await db.schema.createIndex('shopify_order_links_order').on('shopify_order_links').column('order_id').execute();
  await db.schema
    .createIndex('shopify_order_links_customer')
    .on('shopify_order_links')
    .columns(['shop', 'customer_id'])
    .execute();

  await db.schema
    .createTable('shopify_fulfillments')
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('fulfillment_id', 'text', (c) => c.notNull())
    .addColumn('shopify_order_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text')
    // Null until the fulfillment itself arrives (a fulfillment event can come first).
    .addColumn('line_item_ids', 'jsonb')
    .addColumn('tracking_company', 'text')
    .addColumn('tracking_numbers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('shipment_status', 'text')
    .addColumn('shopify_created_at', 'timestamptz')
    // Shopify's updated_at of the version stored here: an older one arriving later is stale.
    .addColumn('shopify_updated_at', 'timestamptz')
    // Set once, never cleared: Shopify reported this package delivered.
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('shopify_fulfillments_pk', ['shop', 'fulfillment_id'])
    .execute();
  await db.schema
    .createIndex('shopify_fulfillments_order')
    .on('shopify_fulfillments')
    .columns(['shop', 'shopify_order_id'])
    .execute();

  await db.schema
    .createTable('shopify_data_exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('data_request_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('shopify_data_exports_account')
    .on('shopify_data_exports')
    .columns(['account_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'shopify_data_exports',
    'shopify_fulfillments',
    'shopify_order_links',
    'webhook_receipts',
    'shops',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
