import { sql, type Kysely } from 'kysely';

/**
 * Issue 14, "No message lost after it left": e-mail providers' event webhooks (Postmark, SES,
 * SendGrid). Each event is stored raw before it is answered and applied after; a bounce, complaint
 * or drop marks its send failed (`bounced_at`), which lets a resend take another channel.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    // The provider's event id: providers redeliver, we apply once.
    .addColumn('event_key', 'text', (c) => c.notNull())
    // The provider's own body, kept until the event is applied: it names the address it is about,
    // which nothing needs once the event had its effect (the `event` column keeps what we read of it).
    .addColumn('body', 'jsonb')
    .addColumn('event', 'jsonb', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .addColumn('outcome', 'text')
    .addColumn('send_id', 'text')
    .execute();
  await sql`create unique index email_events_key on email_events (provider, event_key)`.execute(db);
  await sql`create index email_events_pending on email_events (received_at) where processed_at is null`.execute(db);

  await db.schema.alterTable('sends').addColumn('bounced_at', 'timestamptz').execute();
  // A provider's event names its own message id (the SMTP server's queue id) when it does not carry our Message-ID.
  await sql`create index sends_provider_message on sends (provider_message_id) where provider_message_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists sends_provider_message`.execute(db);
  await db.schema.alterTable('sends').dropColumn('bounced_at').execute();
  await db.schema.dropTable('email_events').execute();
}
