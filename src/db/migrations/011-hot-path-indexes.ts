import { sql, type Kysely } from 'kysely';

/**
 * Issue 11: every query on a hot path reads through an index (test/db/hot-query-plans.test.ts
 * EXPLAINs them on a seeded database). What was still read whole: `trackings` by `lease_token` —
 * a claim's packages, releasing a lost claim, the reconciler's open claims. Only leased rows are
 * indexed: at any moment a handful of the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index trackings_leased on trackings (lease_token) where lease_token is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index trackings_leased`.execute(db);
}
