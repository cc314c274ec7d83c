import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Router from '@koa/router';
import { FileStore } from '@tus/file-store';
import { EVENTS, Metadata, Server, type Upload } from '@tus/server';
import type { Context } from 'koa';
import { NotFoundError } from '../../errors.ts';
import { errorAnswer } from '../../http/error-handler.ts';
import { HttpError } from '../../http/errors.ts';
import type { Logger } from '../../logger.ts';
import type { OrderRow } from '../../orders/serializer.ts';
import type { VideoPurpose } from '../../vocabulary.ts';
import { VIDEO_CONTENT_TYPES } from '../service.ts';
import type { VideoRow } from '../videos.ts';

/**
 * Uploads that survive a phone's network (issue 27): the record page and the thank-you reply send
 * their video with the tus protocol (https://tus.io/protocols/resumable-upload, `@tus/server`), so a
 * connection cut at 60% continues from 60% instead of from zero.
 *
 *   POST   {base}                  create (Upload-Length, Upload-Metadata `filetype`); may carry the
 *                                  first bytes, or all of them (creation-with-upload)
 *   HEAD   {base}/{id}             how much arrived (Upload-Offset)
 *   PATCH  {base}/{id}             the next bytes, from Upload-Offset
 *   DELETE {base}/{id}             give up
 *   POST   {base}/{id}/complete    the answer for a finished upload, handing it over if that failed
 *
 * The bytes collect on local disk (`DATA_DIR/uploads`); when the last byte arrives the upload is
 * handed over to the video service (storage, the `videos` row, processing) and its partial file is
 * deleted. The request that carried the last byte answers what `PUT …/video` answers (200 + JSON);
 * every error is our usual JSON error, tus protocol errors included.
 */
export interface ResumableUploadsOptions {
  /** Where unfinished uploads collect: `DATA_DIR/uploads`. */
  directory: string;
  /** VIDEO_MAX_BYTES: Upload-Length above it is refused (413) before a byte is sent. */
  maxBytes: number;
  /** An upload not finished (or not handed over) this long after it was created is deleted. */
  expiryMs: number;
  logger: Logger;
  findVideo: (videoId: string) => Promise<VideoRow | undefined>;
  /** The wall clock, as tus stamps an upload's creation with it (a test looks into the future). */
  now?: () => Date;
}

/** One kind of upload (the gift, a thank-you reply) under its page's capability path (`:uuid`). */
export interface UploadKind {
  /** Stored with each upload, so an upload of one kind is never finished as another. */
  name: VideoPurpose;
  /** The order the path's uuid names (NotFoundError when none). */
  order: (uuid: string) => Promise<OrderRow>;
  /** Before an upload is created: may the order take one now (409), within its budget (429)? */
  admit: (ctx: Context, order: OrderRow) => Promise<void>;
  /** Stores the finished bytes as the order's upload. Called again with the same `id` it returns the first row. */
  handOver: (order: OrderRow, upload: { id: string; contentType: string; body: Readable }) => Promise<VideoRow>;
  /** What the page is told about its stored upload (where its poster and transcript go). */
  answer: (order: OrderRow, video: VideoRow) => Record<string, string>;
}

/** A tus upload id: 24 hex characters (`vid_` + it is the video's id once handed over). */
const UPLOAD_ID = /^[0-9a-f]{24}$/;
/** Expired uploads are looked for when one is created, at most this often. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** The `vid_…` id an upload's video gets: handing it over twice finds the first. */
function videoIdOfUpload(uploadId: string): string {
  return `vid_${uploadId}`;
}

export class ResumableUploads {
  private readonly store: FileStore;
  private readonly now: () => Date;
  /** The Koa context of each request tus is handling: its hooks log and answer through it. */
  private readonly contexts = new WeakMap<IncomingMessage, Context>();
  /** Hand-overs running in this process, by upload id: a retry joins the one in flight. */
  private readonly handingOver = new Map<string, Promise<VideoRow>>();
  private lastSweep = 0;

  constructor(private readonly options: ResumableUploadsOptions) {
    // The expiry is announced to clients (Upload-Expires); `sweep` enforces it.
    this.store = new FileStore({ directory: options.directory, expirationPeriodInMilliseconds: options.expiryMs });
    this.now = options.now ?? (() => new Date());
  }

  /** Mounts the protocol under `base` (a path with `:uuid`, e.g. `/record/:uuid/uploads`). */
  mount(router: Router, base: string, kind: UploadKind): void {
    const server = this.server(kind);

    router.post(base, async (ctx) => {
      const order = await kind.order(ctx.params.uuid!);
      this.checkCreation(ctx);
      await kind.admit(ctx, order);
      void this.sweepNowAndThen();
      await this.handle(ctx, server);
    });

    router.post(`${base}/:uploadId/complete`, async (ctx) => {
      const order = await kind.order(ctx.params.uuid!);
      ctx.body = kind.answer(order, await this.complete(order, kind, ctx.params.uploadId!));
    });

    router.all(`${base}/:uploadId`, async (ctx) => {
      if (!['HEAD', 'PATCH', 'DELETE'].includes(ctx.method)) {
        ctx.set('Allow', 'HEAD, PATCH, DELETE');
        throw new HttpError(405, 'method_not_allowed', `An upload answers HEAD, PATCH and DELETE, not ${ctx.method}.`);
      }
      const order = await kind.order(ctx.params.uuid!);
      await this.uploadOf(order, kind, ctx.params.uploadId!);
      if (ctx.method === 'PATCH') checkPatch(ctx);
      await this.handle(ctx, server);
    });
  }

  /** Deletes the uploads older than the expiry, finished or not; how many. */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.options.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    const oldest = this.now().getTime() - this.options.expiryMs;
    let deleted = 0;
    for (const name of names) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : null;
      if (id === null || !UPLOAD_ID.test(id) || this.handingOver.has(id)) continue;
      const upload = await this.store.getUpload(id).catch(() => null);
      const created = upload?.creation_date ? Date.parse(upload.creation_date) : NaN;
      if (upload && Number.isFinite(created) && created >= oldest) continue;
      await this.store.remove(id).catch(() => {});
      deleted += 1;
    }
    if (deleted > 0) this.options.logger.info({ deleted }, 'deleted expired resumable uploads');
    return deleted;
  }

  private async sweepNowAndThen(): Promise<void> {
    const now = this.now().getTime();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    await this.sweep().catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'could not sweep expired resumable uploads'),
    );
  }

  /** What we refuse before tus sees the request: each with our JSON error and a status a client acts on. */
  private checkCreation(ctx: Context): void {
    if (ctx.get('Upload-Defer-Length'))
      throw new HttpError(400, 'invalid_request', 'Send Upload-Length: the size of the video must be known up front.');
    const length = ctx.get('Upload-Length');
    if (!/^[0-9]{1,16}$/.test(length))
      throw new HttpError(400, 'invalid_request', 'Upload-Length must be the size of the video in bytes.');
    if (Number(length) === 0) throw new HttpError(422, 'validation_error', 'The video is empty.');
    if (Number(length) > this.options.maxBytes)
      throw new HttpError(
        413,
        'payload_too_large',
        `Videos are limited to ${this.options.maxBytes} bytes (${Math.floor(this.options.maxBytes / 1048576)} MB).`,
      );
    let metadata: Record<string, string | null> = {};
    try {
      // None at all names no type: the 415 below, as for a type we do not take.
      if (ctx.get('Upload-Metadata').trim()) metadata = Metadata.parse(ctx.get('Upload-Metadata'));
    } catch {
      throw new HttpError(400, 'invalid_request', 'Upload-Metadata must be tus metadata: "key base64value" pairs.');
    }
    const type = filetypeOf(metadata);
    if (!type || !(VIDEO_CONTENT_TYPES as readonly string[]).includes(type))
      throw new HttpError(
        415,
        'unsupported_media_type',
        `Name the video's type in Upload-Metadata "filetype": ${VIDEO_CONTENT_TYPES.join(', ')}.`,
      );
  }

  /** The stored upload, if it is this order's and this kind's; else 404 (an id is no key to another order). */
  private async uploadOf(order: OrderRow, kind: UploadKind, uploadId: string): Promise<Upload> {
    const upload = UPLOAD_ID.test(uploadId) ? await this.store.getUpload(uploadId).catch(() => null) : null;
    if (!upload || upload.metadata?.order !== order.uuid || upload.metadata?.kind !== kind.name)
      throw new NotFoundError('No such upload; start a new one.');
    return upload;
  }

  /**
   * A finished upload's answer: its video, handed over now if the request that carried its last byte
   * could not (the page calls this when its upload ends without an answer).
   */
  private async complete(order: OrderRow, kind: UploadKind, uploadId: string): Promise<VideoRow> {
    const video = UPLOAD_ID.test(uploadId) ? await this.options.findVideo(videoIdOfUpload(uploadId)) : undefined;
    if (video && video.order_id === order.id && video.purpose === kind.name) return video;
    const upload = await this.uploadOf(order, kind, uploadId);
    if (upload.size === undefined || upload.offset < upload.size)
      throw new HttpError(
        409,
        'upload_incomplete',
        `The upload has ${upload.offset} of ${upload.size ?? '?'} bytes; send the rest first.`,
      );
    const handedOver = await this.handOver(order, kind, upload);
    await this.removePartial(upload.id);
    return handedOver;
  }

  private async removePartial(uploadId: string): Promise<void> {
    await this.store
      .remove(uploadId)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'could not delete a handed-over upload'));
  }

  /**
   * Gives the finished bytes to the kind (storage, row, processing). The partial file is deleted
   * after, by the caller: tus still reads the upload's record once the finishing POST's hook returned.
   */
  private handOver(order: OrderRow, kind: UploadKind, upload: Upload): Promise<VideoRow> {
    const running = this.handingOver.get(upload.id);
    if (running) return running;
    const work = (async () => {
      const body = createReadStream(path.join(this.options.directory, upload.id));
      // Refused before it was read (the order was cancelled meanwhile), the stream still opens:
      // its errors are the reader's, never an uncaught one.
      body.on('error', () => {});
      try {
        return await kind.handOver(order, {
          id: videoIdOfUpload(upload.id),
          contentType: upload.metadata!.filetype!,
          body,
        });
      } finally {
        body.destroy();
      }
    })().finally(() => this.handingOver.delete(upload.id));
    this.handingOver.set(upload.id, work);
    return work;
  }

  private async handle(ctx: Context, server: Server): Promise<void> {
    // tus answers a missing version in plain text; say it in our JSON, as every other refusal.
    if (ctx.get('Tus-Resumable') !== '1.0.0')
      throw new HttpError(
        412,
        'upload_protocol_error',
        'Send Tus-Resumable: 1.0.0 (the tus resumable upload protocol).',
        {
          'Tus-Version': '1.0.0',
        },
      );
    // tus would take the method from this header, so a POST could be handled as a PATCH or DELETE
    // that skipped the checks our route makes for that method: the request's own method decides.
    if (ctx.get('X-HTTP-Method-Override'))
      throw new HttpError(
        400,
        'invalid_request',
        'X-HTTP-Method-Override is not supported here; send the request with its own method (HEAD, PATCH or DELETE).',
      );
    ctx.respond = false;
    this.contexts.set(ctx.req, ctx);
    // tus writes the response itself; these apply to every answer it writes (our errors are JSON).
    ctx.res.setHeader('Cache-Control', 'no-store');
    ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
    await server.handle(ctx.req, ctx.res);
  }

  private contextOf(req: unknown): Context {
    const node = (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
    const ctx = node ? this.contexts.get(node) : undefined;
    if (!ctx) throw new Error('A resumable upload request arrived outside its Koa route.');
    return ctx;
  }

  private server(kind: UploadKind): Server {
    const server = new Server({
      // Routing is Koa's (base has the order's uuid in it); tus only needs the ids.
      path: '/uploads',
      datastore: this.store,
      maxSize: this.options.maxBytes,
      namingFunction: () => randomBytes(12).toString('hex'),
      generateUrl: (req, { id }) => `${new URL(req.url).pathname.replace(/\/$/, '')}/${id}`,
      getFileIdFromRequest: (_req, lastPath) => (lastPath && UPLOAD_ID.test(lastPath) ? lastPath : undefined),
      // Bound to the order and kind it was created under: checked on every later request (uploadOf).
      onUploadCreate: async (req, upload) => {
        const ctx = this.contextOf(req);
        return {
          metadata: {
            // Checked in checkCreation; only what the hand-over needs is kept (no file name).
            filetype: filetypeOf(upload.metadata)!,
            kind: kind.name,
            order: ctx.params.uuid!.toLowerCase(),
          },
        };
      },
      onUploadFinish: async (req, upload) => {
        const ctx = this.contextOf(req);
        try {
          const order = await kind.order(upload.metadata!.order!);
          const video = await this.handOver(order, kind, upload);
          return {
            // PATCH's 204 carries no body: the page needs the answer (where its poster goes).
            status_code: req.method === 'PATCH' ? 200 : 201,
            headers: { 'Content-Type': 'application/json; charset=utf-8' },
            body: JSON.stringify(kind.answer(order, video)),
          };
        } catch (error) {
          const answer = errorAnswer(error, ctx);
          // Refused for good (the order was sent or cancelled meanwhile, the file is empty): nothing
          // will take these bytes. A failure of ours keeps them for `complete` to retry.
          if (answer.status < 500) await this.removePartial(upload.id);
          throw { status_code: answer.status, body: JSON.stringify(answer.body) };
        }
      },
      // tus's own answers are plain text; ours are JSON everywhere.
      onResponseError: async (req, error) => {
        const ctx = this.contextOf(req);
        const { status_code: status, body } = error as { status_code?: number; body?: string };
        if (typeof body === 'string' && body.startsWith('{') && status) return { status_code: status, body };
        if (!status) {
          const answer = errorAnswer(error, ctx);
          return { status_code: answer.status, body: JSON.stringify(answer.body) };
        }
        const requestId = ctx.state.requestId as string | undefined;
        const message = (body ?? 'The upload request was refused.').trim();
        return {
          status_code: status,
          body: JSON.stringify({
            error: { type: 'upload_protocol_error', message, ...(requestId ? { request_id: requestId } : {}) },
          }),
        };
      },
    });
    // Handed over and answered: the partial file has done its work.
    server.on(EVENTS.POST_FINISH, (_req: unknown, _res: unknown, upload: Upload) => void this.removePartial(upload.id));
    return server;
  }
}

/**
 * What tus would refuse in plain text before any hook of ours runs (its header check): said in our
 * JSON instead, with the status the protocol names — 415 for a PATCH that is not
 * `application/offset+octet-stream`, 400 for an offset that is not a byte count.
 */
function checkPatch(ctx: Context): void {
  if (ctx.get('Content-Type') !== 'application/offset+octet-stream')
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Send the bytes of an upload with Content-Type: application/offset+octet-stream.',
    );
  if (!/^(0|[1-9][0-9]{0,15})$/.test(ctx.get('Upload-Offset')))
    throw new HttpError(400, 'invalid_request', 'Upload-Offset must be the byte offset the bytes start at.');
}

/**
 * The headers of a whole video in one request to a page's upload endpoint (tus creation-with-upload),
 * for clients that need no resuming: `npm run cli -- shopify simulate`, the soak, tests. Answers 201
 * with the page's JSON answer.
 */
export function oneRequestUploadHeaders(length: number, type: string): Record<string, string> {
  return {
    'Tus-Resumable': '1.0.0',
    'Upload-Length': String(length),
    'Upload-Metadata': Metadata.stringify({ filetype: type }),
    'Content-Type': 'application/offset+octet-stream',
  };
}

/** `video/webm;codecs=vp9,opus` → `video/webm`: the base type an upload's tus `filetype` names, or null. */
function filetypeOf(metadata: Record<string, string | null> | undefined): string | null {
  const value = metadata?.filetype;
  return value ? value.split(';')[0]!.trim().toLowerCase() : null;
}
