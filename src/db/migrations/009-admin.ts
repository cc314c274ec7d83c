import { sql, type Kysely } from 'kysely';

/**
 * What the embedded admin needs stored (docs/shopify.md, "The embedded admin's API"):
 * - `shops.default_send_method`: how a video line that gives both an e-mail and a phone is sent
 *   ('email_and_sms' keeps what every shop did before this setting existed);
 * - `shopify_order_links.shopify_order_name`: Shopify's "#1001", so the merchant can search by it
 *   (null on links made before this migration);
 * - `accounts.api_key_hint`: the last characters of the current API key, so the admin can say
 *   which key is in use without ever holding the key (null until the key is next issued);
 * - indexes for the admin's reads: an order's sends (every status, not only the live ones the
 *   unique index covers), an account's orders by creation time (the home counts) and by send time
 *   (the home's delivery→sent median and the monthly statements).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shops')
    .addColumn('default_send_method', 'text', (c) =>
      c
        .notNull()
        .defaultTo('email_and_sms')
        .check(sql`default_send_method in ('email', 'sms', 'email_and_sms')`),
    )
    .execute();
  await db.schema.alterTable('shopify_order_links').addColumn('shopify_order_name', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('api_key_hint', 'text').execute();
  await db.schema.createIndex('sends_order').on('sends').column('order_id').execute();
  await db.schema.createIndex('orders_account_created').on('orders').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('orders_account_sent').on('orders').columns(['account_id', 'sent_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_account_sent').execute();
  await db.schema.dropIndex('orders_account_created').execute();
  await db.schema.dropIndex('sends_order').execute();
  await db.schema.alterTable('accounts').dropColumn('api_key_hint').execute();
  await db.schema.alterTable('shopify_order_links').dropColumn('shopify_order_name').execute();
  await db.schema.alterTable('shops').dropColumn('default_send_method').execute();
}
