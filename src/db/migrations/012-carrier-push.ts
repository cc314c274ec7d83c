import { sql, type Kysely } from 'kysely';

/**
 * Carrier push (docs/tracking.md "Push"). Trackings learn whether a carrier push subscription covers
 * the package (so polling can stretch to a sparse confirmation cadence) and when to renew it; the
 * carriers' raw events are stored before they are answered, and applied after.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('trackings')
    // When the live subscription began and lapses (UPS Track Alert: 14 days); null = none.
    .addColumn('push_subscribed_at', 'timestamptz')
    .addColumn('push_until', 'timestamptz')
    // When to (re)subscribe next: null = as soon as push is on for the carrier.
    .addColumn('push_renew_at', 'timestamptz')
    .addColumn('last_pushed_at', 'timestamptz')
    .execute();
  // The subscriber's only query: packages of one carrier still tracked whose subscription is due.
  await sql`create index trackings_push_due on trackings (carrier, push_renew_at) where next_poll_at is not null`.execute(
    db,
  );

  await db.schema
    .createTable('carrier_push_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('tracking_number', 'text', (c) => c.notNull())
    // What makes two deliveries of one event the same event: the carrier resends, we apply once.
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('body', 'jsonb', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('lease_until', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('processed_at', 'timestamptz')
    .addColumn('outcome', 'text')
    .execute();
  await sql`create unique index carrier_push_events_key on carrier_push_events (carrier, event_key)`.execute(db);
  await sql`create index carrier_push_events_pending on carrier_push_events (received_at) where processed_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('carrier_push_events').execute();
  await db.schema
    .alterTable('trackings')
    .dropColumn('push_subscribed_at')
    .dropColumn('push_until')
    .dropColumn('push_renew_at')
    .dropColumn('last_pushed_at')
    .execute();
}
