import type { Kysely } from 'kysely';

/**
 * Issue 11, "use what carriers tell us": the destination's IANA time zone, learned from the address
 * parts of tracking responses (src/tracking/destination-time-zone.ts), so the schedule keeps the
 * destination's own hours instead of hours that cover every US zone. Null until a carrier says.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').addColumn('destination_time_zone', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').dropColumn('destination_time_zone').execute();
}
