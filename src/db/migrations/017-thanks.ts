import { sql, type Kysely } from 'kysely';

/**
 * Issue 14, the thank-you reply: the recipient answers a gift with a short video or a note.
 *
 * - `videos.purpose`: a reply video is an upload like the gift's (same storage, processing, duration
 *   check, poster, erasure), told apart so that the gift's "newest upload wins" never sees it.
 * - `thanks`: one reply per order (the primary key). `key` is the sender's capability for
 *   `/thanks/{key}`, distinct from the recipient's watch uuid so neither can open the other's page.
 *   `video_id` is the processed reply video that stands, `note` the written reply; the newest of the
 *   two the recipient gave is `reply`. `sent_at` is when the sender's e-mail was accepted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('purpose', 'text', (c) =>
      c
        .notNull()
        .defaultTo('gift')
        .check(sql`purpose in ('gift', 'thanks')`),
    )
    .execute();
  await db.schema
    .createTable('thanks')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key', 'uuid', (c) => c.notNull().unique())
    .addColumn('reply', 'text', (c) => c.notNull().check(sql`reply in ('video', 'note')`))
    .addColumn('note', 'text')
    .addColumn('video_id', 'text')
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('thanks').execute();
  await db.schema.alterTable('videos').dropColumn('purpose').execute();
}
