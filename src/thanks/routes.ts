import Router from '@koa/router';
import type { StoreBranding } from '../accounts/store-branding.ts';
import { NotFoundError } from '../errors.ts';
import { visitorLocale } from '../i18n/locale.ts';
import { readJsonObject } from '../http/json-body.ts';
import { playbackUrl } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import { parseBody } from '../validation.ts';
import { readPosterBody } from '../videos/uploads/poster-body.ts';
import { servePoster, serveVideo } from '../videos/storage/serve-video.ts';
import type { VideoStorage } from '../videos/storage/storage.ts';
import type { UploadLimit } from '../videos/uploads/upload-limit.ts';
import type { ResumableUploads } from '../videos/uploads/resumable-uploads.ts';
import { z } from 'zod';
import { thanksNotFoundPage, thanksPage } from './pages.ts';
import type { ThanksService } from './service.ts';

export interface ThanksRouteDeps {
  orders: OrderService;
  thanks: ThanksService;
  storage: VideoStorage;
  /** VIDEO_MAX_BYTES: a reply video is refused above the gift's own size limit. */
  maxBytes: number;
  storeBranding: (accountId: string) => Promise<StoreBranding>;
  uploadLimit?: UploadLimit;
  resumableUploads: ResumableUploads;
  /** Where the store is online (a Shopify shop's storefront), for the sender's page to link to; null: nowhere known. */
  storeUrl?: (accountId: string) => Promise<string | null>;
  publicUrl: string;
}

/** A note is text; its length is the service's rule (one message for the page). */
const noteSchema = z.object({ note: z.string() }).strict();

/**
 * The recipient's reply (under their watch link's uuid, the capability they already hold) and the
 * sender's page of it (`/thanks/{key}`, a capability of its own, e-mailed to the sender).
 */
export function thanksRoutes(deps: ThanksRouteDeps): Router {
  const router = new Router();

  router.put('/watch/:uuid/thanks/note', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const { note } = parseBody(noteSchema, await readJsonObject(ctx), 'note');
    await deps.thanks.saveNote(order, note);
    ctx.body = { status: 'saved' };
  });

  // The reply video, resumable like the gift's (src/videos/uploads/resumable-uploads.ts).
  deps.resumableUploads.mount(router, '/watch/:uuid/thanks/uploads', {
    name: 'thanks',
    order: (uuid) => deps.orders.getByUuid(uuid),
    async admit(ctx, order) {
      await deps.thanks.assertTakesReplies(order);
      // Its own budget: a recipient's replies never use up the sender's uploads.
      await deps.uploadLimit?.take(ctx, `thanks:${order.uuid}`);
    },
    handOver: (order, upload) => deps.thanks.uploadVideo(order, upload),
    answer: (order, video) => ({
      status: 'received',
      video_id: video.id,
      poster_upload_url: `/watch/${order.uuid}/thanks/videos/${video.id}/poster`,
      // The page follows it, and says so when the reply could not be prepared (it said "sent" at once).
      status_url: `/watch/${order.uuid}/thanks/videos/${video.id}`,
    }),
  });

  router.get('/watch/:uuid/thanks/videos/:videoId', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.thanks.replyVideoState(order, ctx.params.videoId!);
  });

  router.put('/watch/:uuid/thanks/videos/:videoId/poster', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const bytes = await readPosterBody(ctx);
    await deps.thanks.attachPoster(order, ctx.params.videoId!, bytes);
    ctx.body = { status: 'saved' };
  });

  router.get('/thanks/:key', async (ctx) => {
    let found;
    try {
      found = await deps.thanks.byKey(ctx.params.key!);
    } catch (error) {
      if (error instanceof NotFoundError) return thanksNotFoundPage(ctx, visitorLocale(ctx.get('Accept-Language')));
      throw error;
    }
    const [store, direct, storeUrl] = await Promise.all([
      deps.storeBranding(found.order.account_id),
      found.video ? deps.storage.directUrl(found.video.storage_key) : null,
      deps.storeUrl?.(found.order.account_id) ?? null,
    ]);
    thanksPage(ctx, {
      ...found,
      store,
      locale: store.locale,
      links: { gift: playbackUrl(deps.publicUrl, found.order.uuid), store: storeUrl },
      ...(direct ? { mediaOrigin: direct.origin } : {}),
    });
  });

  router.get('/thanks/:key/video', async (ctx) => {
    const { video } = await deps.thanks.byKey(ctx.params.key!);
    if (!video) throw new NotFoundError('This thank-you has no video.');
    await serveVideo(ctx, deps.storage, video);
  });

  router.get('/thanks/:key/poster', async (ctx) => {
    const { video } = await deps.thanks.byKey(ctx.params.key!);
    if (!video?.poster_key) throw new NotFoundError('This thank-you has no poster.');
    await servePoster(ctx, deps.storage, video.poster_key);
  });

  return router;
}
