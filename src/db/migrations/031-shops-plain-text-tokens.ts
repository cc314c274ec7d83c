import { sql, type Kysely } from 'kysely';

/**
 * Issue 11, cost that does not grow with the data: every web and worker process looks, at start, for
 * shops whose tokens are still plain text (written before tokens were sealed; src/shopify/auth/stored-tokens.ts).
 * Once sealed, a shop never matches again, so after the first start the look finds nothing — but
 * without an index it read `shops` whole on every start (344,716 rows in the 1,000,000-row bench).
 * This partial index holds only the rows that still need sealing: normally none.
 * The predicate is the query's own, word for word (`plainTextTokenShopsQuery`), so the planner can
 * prove the index serves it; 'enc:v1:' is token-cipher.ts's VERSION_PREFIX.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index shops_plain_text_tokens on shops (domain)
    where access_token not like 'enc:v1:%' or refresh_token not like 'enc:v1:%'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists shops_plain_text_tokens`.execute(db);
}
