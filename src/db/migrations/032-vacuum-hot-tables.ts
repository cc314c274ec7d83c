import { sql, type Kysely } from 'kysely';

/**
 * Issue 11, cost that does not grow with the data. PostgreSQL vacuums a table once its dead row
 * versions pass 50 + 20% of its rows. The rows these tables change are the newest few thousand
 * (orders in flight, messages being sent, packages being polled, webhooks being processed), so on a
 * large table those rows' dead versions pile up for a long time: at 1,000,000 rows, 200,000 of them.
 * Every update of a hot row then walks and prunes them, and the work per request grew with the table:
 * in the bench's large-table step an orders/create webhook touched 189 buffers on an empty database
 * and 275 → 398 on the seeded one, run after run, until autovacuum came at the 200,000th dead version
 * and it fell back to 191 (bench/results/large-tables-2026-11-26-before-032.md).
 *
 * Here the trigger is 1,000 + 1% of the rows. A vacuum of a large table whose changes sit in its newest
 * pages is cheap: the visibility map lets it skip the pages nobody touched.
 */
export const HOT_TABLES = ['orders', 'sends', 'trackings', 'webhook_receipts', 'order_outbox'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of HOT_TABLES)
    await sql`alter table ${sql.table(table)} set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)`.execute(
      db,
    );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of HOT_TABLES)
    await sql`alter table ${sql.table(table)} reset (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)`.execute(
      db,
    );
}
