import { sql, type Kysely } from 'kysely';

/**
 * Every message Doorstep sends — the video to the recipient, notes to the sender — is a row here
 * before any provider is called. The row is the claim that makes sending exactly-once: a partial
 * unique index allows one live (pending, claimed, sending, sent or uncertain) message per order,
 * kind and channel, so no code path can queue a second one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claim_token', 'text')
    .addColumn('claimed_at', 'timestamptz')
    .addColumn('destination', 'text')
    .addColumn('provider_message_id', 'text')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index sends_one_live on sends (order_id, kind, channel) where status in ('pending', 'claimed', 'sending', 'sent', 'uncertain')`.execute(
    db,
  );
  await sql`create index sends_due on sends (due_at) where status = 'pending'`.execute(db);
  await sql`create index sends_in_flight on sends (claimed_at) where status in ('claimed', 'sending')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sends').execute();
}
