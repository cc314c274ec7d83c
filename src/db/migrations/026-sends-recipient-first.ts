import { sql, type Kysely } from 'kysely';

/**
 * Issue 11, "sender and recipient e-mails are never starved": the dispatcher claims the recipient's
 * video before every other due message (src/notifications/sends.ts `claimDueSendsQuery`). A burst of
 * new Shopify orders queues thousands of record-link e-mails; ordered by due time alone, a gift
 * delivered during that burst waited behind all of them. The index serves the claim's order exactly
 * (recipient videos first, then due time), so the claim stays an index range read however long the
 * backlog is. It replaces `sends_due` (migration 003), which served the due-time order alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index sends_due_recipient_first on sends ((kind <> 'recipient_video'), due_at, id) where status = 'pending'`.execute(
    db,
  );
  await sql`drop index if exists sends_due`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index sends_due on sends (due_at) where status = 'pending'`.execute(db);
  await sql`drop index if exists sends_due_recipient_first`.execute(db);
}
