import { sql, type Kysely } from 'kysely';

/**
 * Shopify billing (docs/shopify.md, "Billing"): the shop's app subscriptions (a usage line item
 * with a capped amount) and one usage charge per sent video. Charges are keyed by order id with no
 * foreign key on purpose: an erased or deleted order keeps its billing row. No personal data here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shopify_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('line_item_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'active', 'declined', 'cancelled', 'frozen', 'expired')`),
    )
    .addColumn('capped_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('revenue_share_bps', 'integer', (c) => c.notNull())
    .addColumn('test', 'boolean', (c) => c.notNull())
    .addColumn('confirmation_url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('approved_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('shopify_subscriptions_shop')
    .on('shopify_subscriptions')
    .columns(['shop', 'created_at'])
    .execute();

  await db.schema
    .createTable('shopify_usage_charges')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer')
    .addColumn('revenue_share_bps', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'recorded', 'over_cap', 'unbilled', 'no_charge')`),
    )
    .addColumn('subscription_id', 'text')
    .addColumn('usage_record_id', 'text')
    .addColumn('shortfall_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('shopify_usage_charges_shop_month')
    .on('shopify_usage_charges')
    .columns(['shop', 'sent_at'])
    .execute();
  await sql`create index shopify_usage_charges_pending on shopify_usage_charges (created_at) where status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shopify_usage_charges').execute();
  await db.schema.dropTable('shopify_subscriptions').execute();
}
