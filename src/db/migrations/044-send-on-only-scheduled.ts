import { sql, type Kysely } from 'kysely';

/**
 * `send_on` is "null when sending is not scheduled" (the spec's order fields): since this migration an
 * order whose trigger is not `date` has none (src/orders/update-plan.ts refuses the pair and a trigger
 * that leaves `date` takes its date along). Orders stored before could hold one; they are cleared, so
 * an unrelated update of such an order is not refused for a date it never used.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update orders set send_on = null where send_trigger <> 'date' and send_on is not null`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: the dates cleared were never used to send.
}
