import type { Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import type { ThanksMessage } from '../notifications/messages/templates.ts';
import type { OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import type { VideoService } from '../videos/service.ts';
import { isUuid } from '../validation.ts';
import type { VideoRow } from '../videos/videos.ts';
import type { UploadState } from '../videos/browser/page-data.ts';
import { findThanks, findThanksByKey, forgetThanks, markThanksSent, saveReply, type ThanksRow } from './thanks.ts';

/** A note is a few sentences, not a letter: the page counts down to it, the route refuses more (422). */
export const THANKS_NOTE_MAX_LENGTH = 1000;

export interface ThanksServiceDeps {
  db: Db;
  orders: OrderService;
  videos: VideoService;
  /** Notifications' answer: has the sender's e-mail left the queue? Then the reply is final. */
  sendStarted: (db: Db, orderId: string) => Promise<boolean>;
  publicUrl: string;
}

/** Where the recipient's reply stands, for the watch page. */
export type ThanksState =
  /** The gift has not reached the recipient yet (plays now are the sender or merchant checking it). */
  | { kind: 'closed' }
  | { kind: 'open' }
  /** A reply waits for its e-mail: it can still be replaced. */
  | { kind: 'waiting'; reply: ThanksRow }
  | { kind: 'sent'; reply: ThanksRow };

/**
 * The recipient's thank-you reply (issue 14): a short video (stored and processed by the videos
 * module like the gift's) or a note; one per order, replaceable until the sender's e-mail leaves.
 * Writes only `thanks`; the order's timeline and `order.thanked` come from OrderService.recordThanks.
 */
export class ThanksService {
  constructor(private readonly deps: ThanksServiceDeps) {}

  async state(order: OrderRow): Promise<ThanksState> {
    if (!acceptsReplies(order)) return { kind: 'closed' };
    const reply = await findThanks(this.deps.db, order.id);
    if (!reply) return { kind: 'open' };
    const final = reply.sent_at !== null || (await this.deps.sendStarted(this.deps.db, order.id));
    return final ? { kind: 'sent', reply } : { kind: 'waiting', reply };
  }

  async saveNote(order: OrderRow, text: string): Promise<void> {
    const note = text.replace(/\r\n?/g, '\n').trim();
    if (note === '') throw new ValidationError('The note is empty.', { note: 'must not be empty' });
    if (note.length > THANKS_NOTE_MAX_LENGTH)
      throw new ValidationError('The note is too long.', {
        note: `must be at most ${THANKS_NOTE_MAX_LENGTH} characters`,
      });
    await this.deps.orders.recordThanks(order.id, async (trx, current, now) => {
      const replaced = await this.assertReplaceable(trx, current);
      await saveReply(trx, current, { kind: 'note', note }, now);
      return { reply: 'note', replaced };
    });
  }

  /** Throws ConflictError (with the reason) unless a reply may be given or replaced now. */
  async assertTakesReplies(order: OrderRow): Promise<void> {
    await this.assertReplaceable(this.deps.db, order);
  }

  /** Stores a reply video; it becomes the reply once processed (`replyProcessed`). */
  async uploadVideo(
    order: OrderRow,
    upload: { contentType: string; body: Readable | Buffer; id?: string },
  ): Promise<VideoRow> {
    await this.assertReplaceable(this.deps.db, order);
    return this.deps.videos.upload(order, {
      ...upload,
      source: 'recipient',
      purpose: 'thanks',
      // Under the order's row lock, before the upload is recorded. The e-mail may leave between this
      // check and processing: then processing finds the reply final and the upload stays unused.
      accepts: (current) => {
        if (!acceptsReplies(current)) throw new ConflictError(closedReason(current));
      },
    });
  }

  /** Where a reply video the watch page sent stands: processing, ready, or failed with the reason. */
  async replyVideoState(order: OrderRow, videoId: string): Promise<UploadState> {
    return this.deps.videos.uploadState(order, videoId, 'thanks');
  }

  /** The reply video's poster frame, drawn by the watch page's recorder like the record page's. */
  async attachPoster(order: OrderRow, videoId: string, bytes: Buffer): Promise<void> {
    await this.deps.videos.attachPoster(order, videoId, bytes, 'thanks');
  }

  /**
   * The videos module's hook: a processed reply video, the order's newest upload, becomes the reply
   * — unless the recipient wrote a note after uploading it (the newest reply stands). True when the
   * video is the reply; a reply already sent to the sender throws ConflictError (this one stays unused).
   */
  async replyProcessed(video: VideoRow): Promise<boolean> {
    let stands = false;
    await this.deps.orders.recordThanks(video.order_id, async (trx, current, now) => {
      const existing = await findThanks(trx, current.id);
      if (existing?.video_id === video.id) {
        stands = true; // processed again: already the reply
        return null;
      }
      if (existing && existing.recorded_at.getTime() > video.created_at.getTime()) return null;
      const replaced = await this.assertReplaceable(trx, current);
      await saveReply(trx, current, { kind: 'video', videoId: video.id }, now);
      stands = true;
      return { reply: 'video', replaced };
    });
    return stands;
  }

  /** The sender's page: the reply behind a `/thanks/{key}` link, with its order; NotFoundError otherwise. */
  async byKey(key: string): Promise<{ reply: ThanksRow; order: OrderRow; video: VideoRow | null }> {
    if (!isUuid(key)) throw notFound();
    const reply = await findThanksByKey(this.deps.db, key);
    if (!reply) throw notFound();
    // A deleted order's link leads nowhere (the orders module's own read says which orders stand).
    const order = await this.deps.orders.get(reply.account_id, reply.order_id).catch((error: unknown) => {
      throw error instanceof NotFoundError ? notFound() : error;
    });
    const video = reply.video_id ? ((await this.deps.videos.find(reply.video_id)) ?? null) : null;
    // A video reply whose video is gone is no reply to show (never an empty note in its place).
    if (reply.reply === 'video' && !video) throw notFound();
    return { reply, order, video };
  }

  /** The sender's e-mail's view of the reply (the dispatcher reads it once the e-mail is `sending`). */
  async message(orderId: string): Promise<ThanksMessage | null> {
    const reply = await findThanks(this.deps.db, orderId);
    if (!reply) return null;
    const url = `${this.deps.publicUrl}/thanks/${reply.key}`;
    const video = reply.video_id ? await this.deps.videos.find(reply.video_id) : undefined;
    return {
      url,
      posterUrl: reply.reply === 'video' && video?.poster_key ? `${url}/poster` : null,
      note: reply.reply === 'note' ? reply.note : null,
    };
  }

  markSent(trx: Db, orderId: string, at: Date): Promise<void> {
    return markThanksSent(trx, orderId, at);
  }

  /** The reply is the recipient's words: erased with the order (its video goes with the order's videos). */
  orderSubscriber(): OrderEventSubscriber {
    return {
      name: 'thanks',
      events: ['order.erased'],
      handle: async (trx, order) => forgetThanks(trx, order.id),
    };
  }

  /** Whether a reply exists now (true: the new one replaces it); ConflictError once it is final. */
  private async assertReplaceable(db: Db, order: OrderRow): Promise<boolean> {
    if (!acceptsReplies(order)) throw new ConflictError(closedReason(order));
    const existing = await findThanks(db, order.id);
    if (existing && (existing.sent_at !== null || (await this.deps.sendStarted(db, order.id))))
      throw new ConflictError('Your thank-you has already been sent; it can no longer be replaced.');
    return existing !== undefined;
  }
}

/** A reply answers a gift that reached the recipient: after the video was sent, on a live order. */
function acceptsReplies(order: OrderRow): boolean {
  return order.sent_at !== null && order.status !== 'cancelled' && order.deleted_at === null;
}

function closedReason(order: OrderRow): string {
  return order.sent_at === null
    ? 'The video message has not been sent to its recipient yet, so it cannot be answered.'
    : 'This video message can no longer be answered.';
}

function notFound(): NotFoundError {
  return new NotFoundError('No such thank-you.');
}
