import { sql, type Kysely } from 'kysely';

/**
 * Issue 11, cost that does not grow with the data: the send reconciler's once-a-minute look for a
 * recipient's video the provider accepted but its order never recorded (a crash between the two
 * writes; src/notifications/dispatcher.ts `recordUnrecordedSends`) joined every sent message to its
 * order — 2.2 s and a full read of `sends` at 1,000,000 rows. `order_recorded` is set when the
 * order's `order.sent` event reaches notifications, so the look reads a partial index of the few
 * sent videos not yet recorded, whatever the history. Existing rows are marked from their orders.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sends add column order_recorded boolean not null default false`.execute(db);
  await sql`
    update sends set order_recorded = true
    from orders
    where orders.id = sends.order_id and orders.sent_at is not null
      and sends.kind = 'recipient_video' and sends.status = 'sent'`.execute(db);
  await sql`
    create index sends_sent_unrecorded on sends (sent_at, id)
    where kind = 'recipient_video' and status = 'sent' and not order_recorded`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists sends_sent_unrecorded`.execute(db);
  await sql`alter table sends drop column order_recorded`.execute(db);
}
