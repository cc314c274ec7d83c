import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { UploadState } from './browser/page-data.ts';
import { uploadState } from './uploads/upload-state.ts';
import { recordTimeline } from '../orders/timeline.ts';
import type { EventSource, VideoPurpose } from '../vocabulary.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderService } from '../orders/service.ts';
import { renditionMaxBytes, type RenditionSettings } from './rendition/plan.ts';
import { UnplayableVideoError } from './rendition/probe.ts';
import { makeRendition } from './rendition/transcode.ts';
import { VideoNotStoredError, type VideoStorage } from './storage/storage.ts';
import { emailPosterKey } from './email-poster.ts';
import { findVideo, newestPlayable, newestUpload, unsettledVideos, type VideoRow } from './videos.ts';

/** The content types an upload may declare (docs/design.md §1 "Video upload"). */
export const VIDEO_CONTENT_TYPES = ['video/mp4', 'video/webm', 'video/quicktime'] as const;

/**
 * Wakes a worker to process an upload. Implemented with BullMQ by the composition root; a failed
 * enqueue loses nothing (the row is `pending` in PostgreSQL and the reconciler re-enqueues it).
 */
export interface VideoProcessingQueue {
  enqueue(videoId: string): Promise<void>;
}

/** A poster is one frame at modest size: a page-drawn JPEG is 30–150 KB. The route enforces it (413). */
export const POSTER_MAX_BYTES = 512 * 1024;

/** Where the record page's own poster of an upload is stored, until processing replaces it. */
function pagePosterKey(video: Pick<VideoRow, 'storage_key'>): string {
  return `${video.storage_key}-poster`;
}

/** JPEG files start with SOI (FF D8) and a marker (FF). */
function isJpeg(bytes: Buffer): boolean {
  return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export interface VideoServiceDeps {
  db: Db;
  orders: OrderService;
  storage: VideoStorage;
  queue: VideoProcessingQueue;
  logger: Logger;
  /** VIDEO_MAX_SECONDS: a longer video fails processing, with the reason on the timeline. */
  maxSeconds: number;
  /** THANKS_MAX_SECONDS: the same check for a recipient's thank-you reply video. */
  thanksMaxSeconds?: number;
  /** The playback rendition every upload is made into (src/videos/rendition/, docs/videos.md). */
  rendition: RenditionConfig;
  /**
   * A reply video processed and is the order's newest reply upload: the thanks module records it as
   * the reply (and the sender's e-mail follows). Must be safe to call again for the same video.
   */
  onReplyProcessed?: (video: VideoRow) => Promise<boolean>;
  now?: () => Date;
}

export interface RenditionConfig {
  settings: RenditionSettings;
  /** The wall clock one encode may take (VIDEO_TRANSCODE_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

/** What processing one upload did. */
export type ProcessOutcome =
  | 'recorded'
  | 'failed'
  /** A newer upload exists: it, not this one, decides the order's video. */
  | 'superseded'
  | 'order_cancelled'
  | 'order_gone';

/**
 * The video use cases: storing an upload and processing it. Nothing here knows about HTTP or
 * queues; routes and the job processor are thin adapters around `upload` and `process`.
 */
export class VideoService {
  private readonly now: () => Date;
  /** Aborted by `stop()`: an encode running at shutdown is killed, and its job runs again later. */
  private stopping = new AbortController();

  constructor(private readonly deps: VideoServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Stores the bytes, records the upload (pending) and asks for processing. The order itself does
   * not change until processing has read a real duration from the file.
   */
  async upload(
    order: OrderRow,
    upload: {
      contentType: string;
      body: Readable | Buffer;
      source: EventSource;
      /** `thanks`: the recipient's reply; the caller (the thanks module) has checked it may be given. */
      purpose?: VideoPurpose;
      /** Under the order's row lock, before the row is written: may the upload still be taken? */
      accepts?: (order: OrderRow) => void;
      /**
       * The id, when the caller names the upload (a resumable upload's, src/videos/uploads/resumable-uploads.ts):
       * handing the same bytes over again then returns the first row instead of a second upload.
       */
      id?: string;
    },
  ): Promise<VideoRow> {
    const purpose = upload.purpose ?? 'gift';
    const accepts = upload.accepts ?? assertAcceptsVideo;
    if (upload.id !== undefined) {
      const existing = await findVideo(this.deps.db, upload.id);
      if (existing && existing.order_id === order.id && existing.purpose === purpose) return existing;
      if (existing) throw new ConflictError('This upload belongs to another video message.');
    }
    accepts(order);
    const id = upload.id ?? `vid_${randomBytes(12).toString('hex')}`;
    const key = `${order.id}/${id}`;
    let size: number;
    try {
      ({ size } = await this.deps.storage.put(key, upload.body, upload.contentType));
    } catch (error) {
      await this.discard(key);
      throw error;
    }
    if (size === 0) {
      await this.discard(key);
      throw new ValidationError('The video is empty.', { video: 'must not be empty' });
    }

    const row = await this.deps.orders
      // The upload may have taken minutes: decide on the order as it is now, under its row lock.
      .whileLocked(order.id, async (trx, current) => {
        accepts(current);
        const now = this.now();
        const inserted = await trx
          .insertInto('videos')
          .values({
            id,
            order_id: order.id,
            storage_key: key,
            content_type: upload.contentType,
            size_bytes: size,
            failure_reason: null,
            duration_tenths: null,
            created_at: now,
            processed_at: null,
            poster_key: null,
            transcript: null,
            purpose,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordTimeline(
          trx,
          current,
          upload.source,
          [
            {
              type: 'video.uploaded',
              data: {
                video_id: id,
                size_bytes: size,
                content_type: upload.contentType,
                ...(purpose === 'thanks' ? { purpose } : {}),
              },
            },
          ],
          now,
        );
        return inserted;
      })
      .catch(async (error: unknown) => {
        await this.discard(key);
        throw error;
      });

    try {
      await this.deps.queue.enqueue(id);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, videoId: id },
        'could not enqueue video processing; the reconciler will pick it up',
      );
    }
    return row;
  }

  /**
   * Kills the encodes running now (worker shutdown); their jobs are retried by the next worker.
   * Encodes started after it run (workers of the same services may be started again).
   */
  stop(): void {
    this.stopping.abort();
    this.stopping = new AbortController();
  }

  /**
   * Makes the upload's playback rendition and poster, reads the real duration from the rendition,
   * and, if it is still the order's newest upload, records the order (or the failure on its
   * timeline). Safe to run again for the same video: a settled upload is not made again, and
   * re-settling changes nothing that is already true.
   */
  async process(videoId: string): Promise<ProcessOutcome> {
    let video = await findVideo(this.deps.db, videoId);
    if (!video) throw new NotFoundError(`No video with id "${videoId}".`);
    if (video.status === 'pending') {
      const result = await this.prepare(video);
      const stored =
        result.ok && video.purpose === 'gift'
          ? await this.storeGiftRendition(video, result)
          : await storeProcessing(this.deps.db, video, result, this.now());
      // The rendition's frame replaces the page-drawn poster, whose file then goes — by its key, not
      // by the row read before: a page poster attached meanwhile goes too (see attachPoster).
      // (Its e-mail poster was never made: e-mails show processed videos' frames only.)
      if (stored === 'processed') await this.discard(pagePosterKey(video));
      // Made, then refused because the video had already gone out: nothing will ever play it.
      if (stored === 'failed' && result.ok) {
        await this.discard(result.renditionKey);
        await this.discard(result.posterKey);
      }
      video = (await findVideo(this.deps.db, videoId))!;
    }
    const outcome = video.purpose === 'thanks' ? await this.settleReply(video) : await this.settle(video);
    // A reply video prunes the older ones only when it became the reply: one that came too late (the
    // sender already has the reply) must not delete the video the sender's e-mail and page show.
    if (video.purpose === 'gift' || outcome === 'recorded') await this.forgetSuperseded(video.order_id, video.purpose);
    return outcome;
  }

  /**
   * A gift's rendition is made: its row becomes `processed` and, when it is the order's newest
   * upload, the order records it — in one transaction under the order's row lock, the lock the
   * send's move to `sending` waits for. Once the recipient's video was sent (or is being handed to
   * a provider), an upload that finishes processing can no longer replace it: the recipient may be
   * watching the sent one, and the e-mail was written for it. Its row fails with the reason, said on
   * the timeline, and the sent video keeps playing.
   */
  private async storeGiftRendition(video: VideoRow, rendition: PreparedRendition): Promise<StoredProcessing> {
    let stored = 'unchanged' as StoredProcessing;
    try {
      await this.deps.orders.markRecorded(video.order_id, {
        durationTenths: rendition.durationTenths,
        source: 'system',
        decide: async (trx, order, { videoGoneOut, now }) => {
          if (videoGoneOut) {
            const refused = { ok: false as const, reason: ALREADY_SENT_REASON };
            stored = await storeProcessing(trx, video, refused, now);
            if (stored === 'failed') await this.recordFailure(trx, order, { ...video, failure_reason: refused.reason });
            return false;
          }
          stored = await storeProcessing(trx, video, rendition, now);
          // Only the newest upload becomes the order's video here; settle() decides the others.
          const newest = await newestUpload(trx, order.id);
          return stored === 'processed' && order.status !== 'cancelled' && newest?.id === video.id;
        },
      });
    } catch (error) {
      // The order was deleted meanwhile: nothing is recorded on it, but the upload is settled.
      if (!(error instanceof NotFoundError)) throw error;
      stored = await storeProcessing(this.deps.db, video, rendition, this.now());
    }
    return stored;
  }

  /**
   * Replaced uploads leave storage (issue 13): once an upload stands (the newest that processed),
   * every settled upload older than it, and every failed one, will never play again — their files
   * go, and their rows too, except the newest upload's: while a failed upload is the sender's last,
   * its row keeps its reason for the page that follows its status URL (a newer upload then takes
   * it). Uploads still pending are left to their own processing (they may yet stand). Files first:
   * should the rows' delete then fail, the next processing of this order deletes again, and deleting
   * a missing file is a no-op.
   */
  private async forgetSuperseded(orderId: string, purpose: VideoPurpose): Promise<void> {
    const standing = await newestPlayable(this.deps.db, orderId, purpose);
    if (!standing) return;
    const newest = (await newestUpload(this.deps.db, orderId, purpose))!;
    const superseded = await this.deps.db
      .selectFrom('videos')
      .select(['id', 'storage_key', 'poster_key', 'rendition_key'])
      .where('order_id', '=', orderId)
      .where('purpose', '=', purpose)
      .where('id', '!=', standing.id)
      .where('status', '!=', 'pending')
      .where((eb) => eb.or([eb('seq', '<', standing.seq), eb('status', '=', 'failed')]))
      .execute();
    if (superseded.length === 0) return;
    for (const video of superseded) await this.deleteFiles(video);
    const rowsGone = superseded.filter((video) => video.id !== newest.id).map((video) => video.id);
    if (rowsGone.length > 0) await this.deps.db.deleteFrom('videos').where('id', 'in', rowsGone).execute();
  }

  /**
   * Reconciler step: uploads whose processing was lost (Redis restart, failed enqueue, a job that
   * gave up) are handed to the queue again. Uploads of the last minute are left to their own job.
   */
  async reconcile(): Promise<number> {
    const videos = await unsettledVideos(this.deps.db, { olderThan: new Date(this.now().getTime() - 60_000) });
    for (const video of videos) await this.deps.queue.enqueue(video.id);
    return videos.length;
  }

  /**
   * Reconciler step: the originals of videos sent more than `retentionDays` ago are deleted; the
   * playback rendition (what every player gets) stays until the order is erased. 0 keeps them.
   * At most `limit` a run, oldest first; a file already gone is not an error.
   */
  async deleteExpiredOriginals(retentionDays: number, limit = 100): Promise<number> {
    if (retentionDays === 0) return 0;
    const sentBefore = new Date(this.now().getTime() - retentionDays * 24 * 3600 * 1000);
    const expired = await this.deps.db
      .selectFrom('videos')
      .innerJoin('orders', 'orders.id', 'videos.order_id')
      .select(['videos.id', 'videos.storage_key'])
      .where('videos.rendition_key', 'is not', null)
      .where('videos.original_deleted_at', 'is', null)
      .where('orders.sent_at', '<', sentBefore)
      .orderBy('orders.sent_at')
      .limit(limit)
      .execute();
    for (const video of expired) {
      await this.deps.storage.delete(video.storage_key);
      await this.deps.db
        .updateTable('videos')
        .set({ original_deleted_at: this.now() })
        .where('id', '=', video.id)
        .execute();
    }
    return expired.length;
  }

  /** The video the watch page plays, or undefined while none has processed. */
  async playable(order: OrderRow): Promise<VideoRow | undefined> {
    return newestPlayable(this.deps.db, order.id);
  }

  /**
   * A recipient's reply video: only the order's newest reply upload counts (a replaced reply is
   * superseded); a failure is said on the timeline like the gift's, and a processed one is handed to
   * the thanks module, which records it as the reply.
   */
  private async settleReply(video: VideoRow): Promise<ProcessOutcome> {
    const newest = await newestUpload(this.deps.db, video.order_id, 'thanks');
    if (newest && newest.id !== video.id) return 'superseded';
    const order = await this.liveOrder(video.order_id);
    if (!order) return 'order_gone';
    if (video.status === 'failed') {
      await this.recordFailure(this.deps.db, order, video);
      return 'failed';
    }
    try {
      // A note the recipient wrote after this upload stands instead of it.
      if (this.deps.onReplyProcessed && !(await this.deps.onReplyProcessed(video))) return 'superseded';
    } catch (error) {
      // Sent to the sender meanwhile (the reply is final), or the order stopped: the upload is moot.
      if (error instanceof ConflictError) return 'order_cancelled';
      if (error instanceof NotFoundError) return 'order_gone';
      throw error;
    }
    return 'recorded';
  }

  /** The video's order, unless it is gone or deleted (nothing is then recorded on it). */
  private async liveOrder(orderId: string): Promise<OrderRow | undefined> {
    const order = await this.deps.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
    return order && order.deleted_at === null ? order : undefined;
  }

  private async settle(video: VideoRow): Promise<ProcessOutcome> {
    const newest = await newestUpload(this.deps.db, video.order_id);
    // A newer upload wins — unless it failed, in which case the newest *processed* one stands.
    if (newest && newest.id !== video.id) {
      const standing =
        newest.status === 'failed' &&
        video.status === 'processed' &&
        (await newestPlayable(this.deps.db, video.order_id))?.id === video.id;
      if (!standing) return 'superseded';
    }
    const order = await this.liveOrder(video.order_id);
    if (!order) return 'order_gone';

    if (video.status === 'failed') {
      await this.recordFailure(this.deps.db, order, video);
      // An earlier upload that processed fine is what the order (and the watch page) then uses.
      const earlier = await newestPlayable(this.deps.db, video.order_id);
      if (earlier && earlier.id !== video.id) await this.settle(earlier);
      return 'failed';
    }
    if (order.status === 'cancelled') return 'order_cancelled';
    const durationTenths = video.duration_tenths ?? 0;
    const alreadyApplied =
      order.video_processed &&
      order.video_duration_tenths === durationTenths &&
      order.recorded_at !== null &&
      video.processed_at !== null &&
      order.recorded_at >= video.processed_at;
    if (!alreadyApplied) {
      try {
        await this.deps.orders.markRecorded(order.id, { durationTenths, source: 'system' });
      } catch (error) {
        // Cancelled or deleted between our read and the service's row lock.
        if (error instanceof ConflictError) return 'order_cancelled';
        if (error instanceof NotFoundError) return 'order_gone';
        throw error;
      }
    }
    // A newer upload may have processed and settled while we were applying ours (the check above
    // and markRecorded are not one transaction); if so, it must be the one that stands.
    const latest = await newestUpload(this.deps.db, video.order_id);
    if (latest && latest.id !== video.id && latest.status === 'processed') await this.settle(latest);
    return 'recorded';
  }

  private async recordFailure(
    db: Db,
    order: OrderRow,
    video: Pick<VideoRow, 'id' | 'failure_reason' | 'purpose'>,
  ): Promise<void> {
    const already = await db
      .selectFrom('order_events')
      .select('id')
      .where('order_id', '=', order.id)
      .where('type', '=', 'video.processing_failed')
      .where(sql<string>`data->>'video_id'`, '=', video.id)
      .executeTakeFirst();
    if (already) return;
    await recordTimeline(
      db,
      order,
      'system',
      [
        {
          type: 'video.processing_failed',
          data: {
            reason: video.failure_reason ?? 'The video could not be read.',
            video_id: video.id,
            ...(video.purpose === 'thanks' ? { purpose: video.purpose } : {}),
          },
        },
      ],
      this.now(),
    );
  }

  /**
   * Copies the stored upload to a private temporary directory, makes its rendition and poster there
   * (src/videos/rendition/), and stores both. Only whole, checked files are stored, under keys of
   * their own, so a failed or killed encode never leaves something that plays.
   */
  private async prepare(video: VideoRow): Promise<PreparedRendition | ProcessingFailure> {
    const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'doorstep-video-'));
    try {
      const file = path.join(directory, 'upload');
      const stored = await this.deps.storage.get(video.storage_key);
      await pipeline(stored.stream, fs.createWriteStream(file, { mode: 0o600 }));
      const reply = video.purpose === 'thanks';
      const maxSeconds = reply ? (this.deps.thanksMaxSeconds ?? this.deps.maxSeconds) : this.deps.maxSeconds;
      const rendition = await makeRendition(file, directory, {
        ...this.deps.rendition,
        maxSeconds,
        maxBytes: renditionMaxBytes(this.deps.rendition.settings, maxSeconds),
        kind: reply ? 'thank-you videos' : 'video messages',
        signal: this.stopping.signal,
      });
      const renditionKey = `${video.storage_key}-playback`;
      const posterKey = `${video.storage_key}-frame`;
      await this.deps.storage.put(renditionKey, fs.createReadStream(rendition.file), 'video/mp4');
      await this.deps.storage.put(posterKey, await fs.promises.readFile(rendition.posterFile), 'image/jpeg');
      return {
        ok: true,
        durationTenths: Math.round(rendition.durationSeconds * 10),
        renditionKey,
        renditionBytes: rendition.bytes,
        posterKey,
      };
    } catch (error) {
      if (error instanceof UnplayableVideoError) return { ok: false, reason: error.message };
      if (error instanceof VideoNotStoredError)
        return { ok: false, reason: 'The uploaded file is missing from storage.' };
      throw error; // storage, disk, a missing ffmpeg or a stop: the job is retried
    } finally {
      await fs.promises.rm(directory, { recursive: true, force: true });
    }
  }

  /**
   * The videos module's reaction to order events: an erased order's uploads go — the files and
   * their rows (customers/redact, shop/redact). The order keeps `video_processed`/`video_duration`
   * as facts about the past; the bytes are gone.
   */
  orderSubscriber(): OrderEventSubscriber {
    return {
      name: 'videos',
      events: ['order.erased'],
      handle: async (trx, order) => {
        const videos = await trx
          .selectFrom('videos')
          .select(['id', 'storage_key', 'poster_key', 'rendition_key'])
          .where('order_id', '=', order.id)
          .execute();
        // Files first: should the transaction then fail, the event is handled again and deleting a
        // missing file is a no-op.
        for (const video of videos) await this.deleteFiles(video);
        await trx.deleteFrom('videos').where('order_id', '=', order.id).execute();
      },
    };
  }

  /**
   * The poster frame of one upload (issue 14): a JPEG the record page drew from the video it just
   * sent. Bound to that upload, so a poster never shows with another video; the first one stands
   * (the page sends one per upload). Checked to be a JPEG by its bytes, not its label.
   */
  async attachPoster(order: OrderRow, videoId: string, bytes: Buffer, purpose: VideoPurpose = 'gift'): Promise<void> {
    const video = await this.uploadOf(order, videoId, purpose);
    if (!isJpeg(bytes))
      throw new ValidationError('The poster is not a JPEG image.', { poster: 'must be a JPEG image' });
    // Processing already made the poster from the rendition, which stands: the page's is not needed.
    if (video.rendition_key !== null) return;
    if (video.poster_key !== null) throw new ConflictError('This video already has its poster.');
    const key = pagePosterKey(video);
    await this.deps.storage.put(key, bytes, 'image/jpeg');
    const updated = await this.deps.db
      .updateTable('videos')
      .set({ poster_key: key })
      .where('id', '=', video.id)
      .where('poster_key', 'is', null)
      .where('rendition_key', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    // Processing finished meanwhile: its frame stands, and the file just written is not needed.
    if ((await findVideo(this.deps.db, video.id))?.rendition_key) return this.discard(key);
    // Lost a race with another poster for the same upload (same key): whichever write landed last is
    // stored — a frame of the same upload either way.
    throw new ConflictError('This video already has its poster.');
  }

  /**
   * What the sender says in one upload (issue 14), typed on the record page and sent right after the
   * upload: the watch page's captions. Bound to that upload like its poster, so it is replaced and
   * erased with the video; the first one stands (409 for a second). Not refused once the video was
   * sent: an order delivered already sends the moment processing ends, which can beat this request.
   */
  async attachTranscript(order: OrderRow, videoId: string, transcript: string): Promise<void> {
    // The sender's words go on the sender's gift only, never on the recipient's reply video.
    const video = await this.uploadOf(order, videoId, 'gift');
    const updated = await this.deps.db
      .updateTable('videos')
      .set({ transcript })
      .where('id', '=', video.id)
      .where('transcript', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw new ConflictError('This video already has its transcript.');
  }

  /** Where a page's upload stands after it arrived (its `status_url`): processing, ready, or failed with the reason. */
  async uploadState(order: OrderRow, videoId: string, purpose: VideoPurpose): Promise<UploadState> {
    return uploadState(await this.uploadOf(order, videoId, purpose));
  }

  /** One upload of this order and purpose; 404 otherwise (an id is no key to another order's video). */
  private async uploadOf(order: OrderRow, videoId: string, purpose: VideoPurpose): Promise<VideoRow> {
    const video = await findVideo(this.deps.db, videoId);
    if (!video || video.order_id !== order.id || video.purpose !== purpose)
      throw new NotFoundError(`No video with id "${videoId}" on this order.`);
    return video;
  }

  /**
   * Why the sender's newest upload could not be used, or null when it could (or is still being
   * processed, or there is none): the record page says it, so a failure after the sender closed the
   * page is not silent.
   */
  async newestUploadFailure(order: OrderRow): Promise<{ reason: string | null } | null> {
    const newest = await newestUpload(this.deps.db, order.id, 'gift');
    if (newest?.status === 'failed') return { reason: newest.failure_reason };
    if (newest?.status === 'pending') return null;
    // The newest upload's row stays when it failed (forgetSuperseded), but rows of failed uploads
    // deleted before that rule are known by their timeline entry: a failure after the standing
    // video's upload was of a newer one.
    const failed = await this.deps.db
      .selectFrom('order_events')
      .select(['data', 'created_at'])
      .where('order_id', '=', order.id)
      .where('type', '=', 'video.processing_failed')
      .where(sql<string>`data->>'purpose'`, 'is', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!failed || (newest && newest.created_at.getTime() >= failed.created_at.getTime())) return null;
    return { reason: typeof failed.data.reason === 'string' ? failed.data.reason : null };
  }

  /** One upload, for the thanks module's page: the reply video it recorded. */
  async find(videoId: string): Promise<VideoRow | undefined> {
    return findVideo(this.deps.db, videoId);
  }

  /** Whether the video the order plays now has a poster (`/watch/{uuid}/poster` serves it). */
  async hasPoster(orderId: string): Promise<boolean> {
    return Boolean((await newestPlayable(this.deps.db, orderId))?.poster_key);
  }

  private async deleteFiles(video: {
    storage_key: string;
    poster_key: string | null;
    rendition_key: string | null;
  }): Promise<void> {
    await this.deps.storage.delete(video.storage_key);
    if (video.rendition_key) await this.deps.storage.delete(video.rendition_key);
    if (video.poster_key) {
      await this.deps.storage.delete(video.poster_key);
      await this.deps.storage.delete(emailPosterKey(video.poster_key));
    }
  }

  private async discard(key: string): Promise<void> {
    await this.deps.storage
      .delete(key)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, key }, 'could not delete a rejected upload'));
  }
}

/** A rendition made and stored, for its upload's row. */
interface PreparedRendition {
  ok: true;
  durationTenths: number;
  renditionKey: string;
  renditionBytes: number;
  posterKey: string;
}

/** Why an upload cannot be used: its row's `failure_reason`, and the sender's page says it. */
interface ProcessingFailure {
  ok: false;
  reason: string;
}

/** What writing processing's result did to the upload's row (`unchanged`: another run settled it first). */
type StoredProcessing = 'processed' | 'failed' | 'unchanged';

/** An upload processed after the recipient's video went out; the sent one stays (storeGiftRendition). */
export const ALREADY_SENT_REASON =
  'The video had already been sent to the recipient when this one was ready, so the sent video stays.';

/** Settles a pending upload's row with processing's result; a row already settled is left as it is. */
async function storeProcessing(
  db: Db,
  video: VideoRow,
  result: PreparedRendition | ProcessingFailure,
  now: Date,
): Promise<StoredProcessing> {
  const updated = await db
    .updateTable('videos')
    .set(
      result.ok
        ? {
            status: 'processed',
            duration_tenths: result.durationTenths,
            processed_at: now,
            rendition_key: result.renditionKey,
            rendition_bytes: result.renditionBytes,
            poster_key: result.posterKey,
          }
        : { status: 'failed', failure_reason: result.reason, processed_at: now },
    )
    .where('id', '=', video.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return 'unchanged';
  return result.ok ? 'processed' : 'failed';
}

/** A cancelled order never sends; a sent video is already with the recipient. Both refuse a new one. */
export function assertAcceptsVideo(order: OrderRow): void {
  if (order.status === 'cancelled') throw new ConflictError('The order is cancelled; it no longer takes a video.');
  if (order.sent_at !== null)
    throw new ConflictError('The video has already been sent to the recipient; it can no longer be replaced.');
}
