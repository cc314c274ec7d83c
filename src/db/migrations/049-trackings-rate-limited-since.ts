import type { Kysely } from 'kysely';

/**
 * Since when a package's looks have been held by rate limits (the carrier's 429, or our budget for
 * it), without a look answered in between (`trackings.rate_limited_since`; null = answered), and when
 * the order's timeline was told (`rate_limit_told_at`). A carrier that keeps a throttled or suspended
 * account waiting for hours is said there once (src/tracking/poller.ts): before, a rate limit never
 * reached the timeline, however long (tracking probe).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('trackings')
    .addColumn('rate_limited_since', 'timestamptz')
    .addColumn('rate_limit_told_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').dropColumn('rate_limited_since').dropColumn('rate_limit_told_at').execute();
}
