import { sql, type Kysely } from 'kysely';

/**
 * One row per uploaded video. An order can have several (re-uploads): the newest upload (highest
 * `seq`) is the order's video, so a late-finishing job for an older upload can tell it lost.
 * The bytes live in video storage (local disk or S3) under `storage_key`; PostgreSQL holds the
 * truth about what is pending, so a reconciler can re-enqueue processing after Redis loses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.generatedAlwaysAsIdentity().unique())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`status in ('pending', 'processed', 'failed')`),
    )
    .addColumn('failure_reason', 'text')
    .addColumn('duration_tenths', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('videos_order_seq').on('videos').columns(['order_id', 'seq']).execute();
  // The reconciler's query: pending uploads, oldest first. Settled rows are not indexed.
  await sql`create index videos_pending on videos (seq) where status = 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('videos').execute();
}
