import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { VideosTable } from '../db/schema.ts';

/** Persistence of the `videos` table: one row per upload. */
export type VideoRow = Selectable<VideosTable>;

export async function findVideo(db: Db, videoId: string): Promise<VideoRow | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', videoId).executeTakeFirst();
}

/** The order's newest upload, whatever its state: it is the order's video (latest upload wins). */
export async function newestUpload(db: Db, orderId: string): Promise<VideoRow | undefined> {
  return db.selectFrom('videos').selectAll().where('order_id', '=', orderId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/**
 * What the watch page plays: the newest upload that processed. A newer upload that is still
 * processing, or failed, leaves the previous good video playing.
 */
export async function newestPlayable(db: Db, orderId: string): Promise<VideoRow | undefined> {
  return db
    .selectFrom('videos')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', '=', 'processed')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Uploads still waiting for processing, oldest first: the reconciler re-enqueues these after Redis
 * lost its queue (PostgreSQL is the truth; a job id per video makes re-enqueueing idempotent).
 * `olderThan` skips uploads whose job was enqueued moments ago.
 */
export async function pendingVideos(db: Db, options: { olderThan?: Date; limit?: number } = {}): Promise<Array<Pick<VideoRow, 'id' | 'order_id' | 'created_at'>>> {
  let query = db.selectFrom('videos').select(['id', 'order_id', 'created_at']).where('status', '=', 'pending').orderBy('seq').limit(options.limit ?? 1_000);
  if (options.olderThan) query = query.where('created_at', '<', options.olderThan);
  return query.execute();
}
