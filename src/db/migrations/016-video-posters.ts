import type { Kysely } from 'kysely';

/**
 * Issue 14, the poster frame: the record page captures a frame of the video it just sent and uploads
 * it as a JPEG for that upload; the watch page and the recipient's e-mail show it. Null: no poster
 * (API uploads, older uploads, a browser that could not draw the frame).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('poster_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('poster_key').execute();
}
