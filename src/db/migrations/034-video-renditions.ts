import { sql, type Kysely } from 'kysely';

/**
 * The playback rendition of every upload (issue 27, docs/videos.md): the one MP4 (H.264 + AAC,
 * faststart, upright) that recipients and senders play, made by the video-processing job.
 * - videos.rendition_key: its storage key; null while processing, on a failed upload, and on rows
 *   processed before this migration (those keep playing their original, as before).
 * - videos.rendition_bytes: its size, for Range answers.
 * - videos.original_deleted_at: when the uploaded original was deleted, VIDEO_ORIGINAL_RETENTION_DAYS
 *   after the video was sent; null while it is kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('rendition_key', 'text')
    .addColumn('rendition_bytes', 'bigint')
    .addColumn('original_deleted_at', 'timestamptz')
    .execute();
  // The reconciler's look for originals past their retention reads only the videos still keeping one.
  await sql`create index videos_original_kept on videos (order_id)
            where rendition_key is not null and original_deleted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('videos_original_kept').execute();
  await db.schema
    .alterTable('videos')
    .dropColumn('original_deleted_at')
    .dropColumn('rendition_bytes')
    .dropColumn('rendition_key')
    .execute();
}
