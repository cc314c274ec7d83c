import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { VideosTable } from '../db/schema.ts';
import type { VideoPurpose } from '../vocabulary.ts';

/** Persistence of the `videos` table: one row per upload. */
export type VideoRow = Selectable<VideosTable>;

/**
 * The file a player gets: the playback rendition (issue 27), or, for an upload processed before
 * renditions existed (migration 034), the original as it was uploaded.
 */
export function playbackFile(video: VideoRow): { key: string; contentType: string; bytes: number } {
  return video.rendition_key !== null && video.rendition_bytes !== null
    ? { key: video.rendition_key, contentType: 'video/mp4', bytes: Number(video.rendition_bytes) }
    : { key: video.storage_key, contentType: video.content_type, bytes: Number(video.size_bytes) };
}

export async function findVideo(db: Db, videoId: string): Promise<VideoRow | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', videoId).executeTakeFirst();
}

/**
 * The order's newest upload of one purpose, whatever its state: it is the order's video (latest
 * upload wins). A recipient's reply video (`thanks`) never competes with the sender's gift.
 */
export async function newestUpload(
  db: Db,
  orderId: string,
  purpose: VideoPurpose = 'gift',
): Promise<VideoRow | undefined> {
  return db
    .selectFrom('videos')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('purpose', '=', purpose)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * What the watch page plays: the newest upload that processed. A newer upload that is still
 * processing, or failed, leaves the previous good video playing.
 */
export async function newestPlayable(
  db: Db,
  orderId: string,
  purpose: VideoPurpose = 'gift',
): Promise<VideoRow | undefined> {
  return db
    .selectFrom('videos')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('purpose', '=', purpose)
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
/**
 * Uploads whose processing never finished its work: still `pending`, or `processed` while their
 * order was never recorded (the job failed after reading the file). The reconciler re-enqueues
 * them; processing is idempotent and settles only an order's newest upload.
 */
export async function unsettledVideos(
  db: Db,
  options: { olderThan: Date; limit?: number },
): Promise<Array<Pick<VideoRow, 'id'>>> {
  return db
    .selectFrom('videos')
    .innerJoin('orders', 'orders.id', 'videos.order_id')
    .select('videos.id')
    .where('videos.created_at', '<', options.olderThan)
    .where((eb) =>
      eb.or([
        eb('videos.status', '=', 'pending'),
        eb.and([
          eb('videos.status', '=', 'processed'),
          eb('videos.purpose', '=', 'gift'),
          eb('orders.video_processed', '=', false),
          eb('orders.status', '!=', 'cancelled'),
          eb('orders.deleted_at', 'is', null),
        ]),
      ]),
    )
    .orderBy('videos.seq')
    .limit(options.limit ?? 1_000)
    .execute();
}
