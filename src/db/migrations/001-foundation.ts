import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull().unique())
    .addColumn('api_key_hash', 'text', (c) => c.notNull())
    .addColumn('revenue_share_bps', 'integer', (c) => c.check(sql`revenue_share_bps between 0 and 10000`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.generatedAlwaysAsIdentity().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('uuid', 'uuid', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('recipient_name', 'text', (c) => c.notNull())
    .addColumn('recipient_email', 'text')
    .addColumn('recipient_phone', 'text')
    .addColumn('send_method', 'text', (c) => c.notNull())
    .addColumn('send_trigger', 'text', (c) => c.notNull())
    .addColumn('send_on', 'timestamptz')
    .addColumn('carrier', 'text')
    .addColumn('tracking_number', 'text')
    .addColumn('delivered', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('video_title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('video_duration_tenths', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('video_processed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('price', 'integer', (c) => c.check(sql`price between 0 and 100000000`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('viewed_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('deleted_at', 'timestamptz')
    // The invariant the whole product rests on, enforced where no code path can skip it.
    .addCheckConstraint('orders_carrier_and_tracking_together', sql`(carrier is null) = (tracking_number is null)`)
    .addCheckConstraint('orders_delivered_has_time', sql`delivered = (delivered_at is not null)`)
    .execute();
  await db.schema.createIndex('orders_account_seq').on('orders').columns(['account_id', 'seq']).execute();

  await db.schema
    .createTable('order_events')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_events_order').on('order_events').columns(['order_id', 'id']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('warning', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['idempotency_keys', 'order_events', 'orders', 'accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
