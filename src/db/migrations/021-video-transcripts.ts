import type { Kysely } from 'kysely';

/**
 * Issue 14, captions: what the sender says in the video, typed on the record page for that upload.
 * The watch page turns it into a WebVTT captions track. It is the sender's words (personal data), so
 * it lives on the upload's row: replaced with the video, erased with it. Null: no transcript.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('transcript', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('transcript').execute();
}
