import Router from '@koa/router';
import type { StoreBranding } from '../accounts/store-branding.ts';
import type { Context } from 'koa';
import { NotFoundError } from '../errors.ts';
import { currentAccount } from '../http/basic-auth.ts';
import { readJsonObject } from '../http/json-body.ts';
import { recipientInputSchema } from '../orders/request-schemas.ts';
import { parseBody } from '../validation.ts';
import { z } from 'zod';
import type { OrderRow } from '../orders/serializer.ts';
import { serializeOrder } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import { browserAssets, sendAsset } from './browser-assets.ts';
import { captionCues, TRANSCRIPT_MAX_CHARS, webVtt } from './captions.ts';
import { notFoundPage, recordPage, watchPage, type WatchView } from './pages.ts';
import { servePoster, serveVideo } from './storage/serve-video.ts';
import { readPosterBody } from './uploads/poster-body.ts';
import { emailPosterKey, storeEmailPoster } from './email-poster.ts';
import { resolvedBrand } from '../design/tokens.ts';
import { assertAcceptsVideo, type VideoService } from './service.ts';
import type { VideoRow } from './videos.ts';
import { VideoNotStoredError, type VideoStorage } from './storage/storage.ts';
import type { UploadLimit } from './uploads/upload-limit.ts';
import { clientStreamError, videoUploadBody } from './uploads/upload-body.ts';
import type { ResumableUploads } from './uploads/resumable-uploads.ts';
import { dateLocale, visitorLocale, type Locale } from '../i18n/locale.ts';
import type { PageLanguage } from './pages.ts';
import { needsDeliveryEstimate, whatHappensNext, type DeliveryEstimate } from './what-happens-next.ts';

export interface VideoRouteDeps {
  orders: OrderService;
  videos: VideoService;
  storage: VideoStorage;
  /** VIDEO_MAX_BYTES. */
  maxBytes: number;
  /** VIDEO_MAX_SECONDS, which the record page counts down to. */
  maxSeconds: number;
  /** The store an order belongs to, named on its record and watch pages (accounts' `findStoreBranding`). */
  storeBranding: (accountId: string) => Promise<StoreBranding>;
  /** The carrier's estimate for an order's package (tracking's `carrierEstimate`), for the record page. */
  deliveryEstimate: (orderId: string) => Promise<DeliveryEstimate | null>;
  /** PUBLIC_URL, for the order JSON. */
  publicUrl: string;
  /**
   * The recipient's thank-you part of the watch page (src/thanks/), when the app has one: its state
   * is read beside the page's other reads, then it is written in the page's language.
   */
  thanksSection?: (order: OrderRow) => Promise<(locale: Locale) => WatchView['thanks']>;
  /** The public record page's upload budget (absent: unlimited, e.g. a test of the upload alone). */
  uploadLimit?: UploadLimit;
  /** The pages' resumable uploads (tus), shared with the thank-you reply's. */
  resumableUploads: ResumableUploads;
}

/** The record page's transcript of the upload it just sent: `{"transcript": "…"}`. */
const transcriptInputSchema = z.strictObject({
  transcript: z
    .string({ message: 'must be text' })
    .trim()
    .min(1, 'must not be empty')
    .max(TRANSCRIPT_MAX_CHARS, `must be at most ${TRANSCRIPT_MAX_CHARS} characters`)
    // PostgreSQL text cannot hold NUL; other control characters are stored and dropped from the cues.
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters'),
});

/** `PUT /v1/orders/{id}/video`: mounted behind Basic auth, like the rest of /v1. */
export function videoApiRoutes(deps: VideoRouteDeps): Router {
  const router = new Router({ prefix: '/v1/orders' });
  router.put('/:orderId/video', async (ctx) => {
    const order = await deps.orders.get(currentAccount(ctx).id, ctx.params.orderId!);
    await receiveUpload(ctx, deps, order);
    ctx.body = serializeOrder(await deps.orders.get(currentAccount(ctx).id, order.id), deps.publicUrl);
  });
  return router;
}

/**
 * The public pages: `record_url` and its upload, `playback_url`, its video stream and the play
 * beacon, and the pages' scripts. No credentials: the unguessable uuid in the path is the capability.
 */
export function videoPageRoutes(deps: VideoRouteDeps): Router {
  const router = new Router();
  const assets = browserAssets();
  const assetsByPath = new Map(Object.values(assets).map((asset) => [asset.url, asset]));

  // The pages' scripts, by content-hashed URL. Only this build's URLs exist: the pages are
  // no-store, so none still names an older one.
  router.get('/assets/:file', async (ctx) => {
    const asset = assetsByPath.get(ctx.path);
    if (!asset) throw new NotFoundError('No such asset.');
    sendAsset(ctx, asset);
  });

  router.get('/record/:uuid', async (ctx) => {
    if (redirectedPastTrailingPunctuation(ctx, '/record/')) return;
    const order = await orderOrNull(deps, ctx.params.uuid!);
    if (!order) return notFoundPage(ctx, visitorLocale(ctx.get('Accept-Language')));
    const [estimate, store, failedUpload] = await Promise.all([
      needsDeliveryEstimate(order) ? deps.deliveryEstimate(order.id) : null,
      deps.storeBranding(order.account_id),
      deps.videos.newestUploadFailure(order),
    ]);
    const language = pageLanguage(ctx, store.locale);
    recordPage(ctx, order, {
      language,
      failedUpload,
      limits: { maxBytes: deps.maxBytes, maxSeconds: deps.maxSeconds },
      nextStep: whatHappensNext(order, estimate, language),
      store,
      script: assets.record,
    });
  });

  // The page's upload, resumable (tus, src/videos/uploads/resumable-uploads.ts): a phone's cut connection
  // continues where it stopped.
  deps.resumableUploads.mount(router, '/record/:uuid/uploads', {
    name: 'gift',
    order: (uuid) => deps.orders.getByUuid(uuid),
    async admit(ctx, order) {
      // Refuse before hundreds of megabytes arrive that would be thrown away.
      assertAcceptsVideo(order);
      await deps.uploadLimit?.take(ctx, order.uuid);
    },
    handOver: (order, upload) => deps.videos.upload(order, { ...upload, source: 'sender' }),
    // Only what the page needs: the order's details are the store's, not the public's.
    answer: (order, video) => ({
      status: 'received',
      video_id: video.id,
      poster_upload_url: `/record/${order.uuid}/videos/${video.id}/poster`,
      transcript_url: `/record/${order.uuid}/videos/${video.id}/transcript`,
      status_url: `/record/${order.uuid}/videos/${video.id}`,
    }),
  });

  // Where the page's upload stands after it arrived: processing, ready, or failed with the reason.
  router.get('/record/:uuid/videos/:videoId', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.videos.uploadState(order, ctx.params.videoId!, 'gift');
  });

  // The page's poster frame for the upload it just sent (issue 14): a small JPEG, bound to that upload.
  router.put('/record/:uuid/videos/:videoId/poster', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const bytes = await readPosterBody(ctx);
    await deps.videos.attachPoster(order, ctx.params.videoId!, bytes);
    ctx.body = { status: 'saved' };
  });

  // What the sender says in the upload it just sent (issue 14): the watch page's captions.
  router.put('/record/:uuid/videos/:videoId/transcript', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const { transcript } = parseBody(transcriptInputSchema, await readJsonObject(ctx), 'transcript');
    await deps.videos.attachTranscript(order, ctx.params.videoId!, transcript);
    ctx.body = { status: 'saved' };
  });

  // The sender says who an order that came without a recipient is for (the record page's form).
  router.put('/record/:uuid/recipient', async (ctx) => {
    const recipient = parseBody(recipientInputSchema, await readJsonObject(ctx), 'recipient');
    const order = await deps.orders.supplyRecipient(ctx.params.uuid!, recipient);
    ctx.body = { status: 'saved', recipient_name: order.recipient_name };
  });

  router.get('/watch/:uuid', async (ctx) => {
    if (redirectedPastTrailingPunctuation(ctx, '/watch/')) return;
    const order = await orderOrNull(deps, ctx.params.uuid!);
    if (!order) return notFoundPage(ctx, visitorLocale(ctx.get('Accept-Language')));
    const [video, store, thanksIn] = await Promise.all([
      order.status === 'cancelled' ? undefined : deps.videos.playable(order),
      deps.storeBranding(order.account_id),
      deps.thanksSection?.(order),
    ]);
    const language = pageLanguage(ctx, store.locale);
    const thanks = thanksIn?.(language.locale);
    // With object storage the player is redirected there: the page's CSP must let it load from that origin.
    const direct = video ? await deps.storage.directUrl(video.storage_key) : null;
    watchPage(ctx, order, {
      language,
      hasVideo: video !== undefined,
      hasPoster: Boolean(video?.poster_key),
      hasCaptions: Boolean(video?.transcript),
      store,
      script: assets.watch,
      thanksScript: assets.thanks,
      mediaOrigin: direct?.origin,
      ...(thanks ? { thanks } : {}),
    });
  });

  // GET and HEAD (the router answers HEAD for GET routes). Browsers fetch ranges while seeking.
  // The poster frame of the video the order plays now. Small: served through Node from either storage.
  router.get('/watch/:uuid/poster', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const key = order.status === 'cancelled' ? null : ((await deps.videos.playable(order))?.poster_key ?? null);
    if (!key) throw new NotFoundError('This video message has no poster.');
    await servePoster(ctx, deps.storage, key);
  });

  // The e-mail's poster: the same frame with a play button drawn in, in the store's accent (e-mail
  // clients ignore overlays). Made on first ask, kept beside the poster.
  router.get('/watch/:uuid/email-poster.jpg', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const key = order.status === 'cancelled' ? null : ((await deps.videos.playable(order))?.poster_key ?? null);
    if (!key) throw new NotFoundError('This video message has no poster.');
    // Drawn already (the usual case once the mail was first opened): served with one read.
    const drawn = await servePoster(ctx, deps.storage, emailPosterKey(key)).then(
      () => true,
      (error: unknown) => {
        if (error instanceof VideoNotStoredError) return false;
        throw error;
      },
    );
    if (drawn) return;
    const { brand } = await deps.storeBranding(order.account_id);
    const emailPoster = await storeEmailPoster(deps.storage, key, resolvedBrand(brand).accent).then(
      () => emailPosterKey(key),
      (error: unknown) => {
        // A frame ffmpeg cannot draw on still shows: the plain poster, rather than a broken image.
        ctx.log.warn({ err: error }, 'could not draw the e-mail poster; serving the plain poster');
        return key;
      },
    );
    await servePoster(ctx, deps.storage, emailPoster);
  });

  // The captions track of the video the order plays now, built from its transcript on each request
  // (it is small, and the cues follow the processed video's length). Same access rule as the video.
  router.get('/watch/:uuid/captions.vtt', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const video = order.status === 'cancelled' ? undefined : await deps.videos.playable(order);
    if (!video?.transcript) throw new NotFoundError('This video message has no captions.');
    ctx.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
    ctx.type = 'text/vtt; charset=utf-8';
    ctx.body = webVtt(captionCues(video.transcript, (video.duration_tenths ?? 0) / 10));
  });

  router.get('/watch/:uuid/video', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    const video = order.status === 'cancelled' ? undefined : await deps.videos.playable(order);
    if (!video) throw new NotFoundError('This video message is not ready yet.');
    await serveVideo(ctx, deps.storage, video);
  });

  // The watch page's script calls this on the video's `play` event: a page view, a HEAD or a
  // link prefetch never counts as viewed.
  router.post('/watch/:uuid/viewed', async (ctx) => {
    const order = await deps.orders.getByUuid(ctx.params.uuid!);
    if (!order.video_processed) throw new NotFoundError('This video message is not ready yet.');
    await deps.orders.markViewed(order.id);
    ctx.status = 204;
  });

  return router;
}

async function receiveUpload(ctx: Context, deps: VideoRouteDeps, order: OrderRow): Promise<VideoRow> {
  // Refuse before reading hundreds of megabytes that would be thrown away.
  assertAcceptsVideo(order);
  const { contentType, body } = videoUploadBody(ctx, deps.maxBytes);
  try {
    return await deps.videos.upload(order, { contentType, body, source: 'api' });
  } catch (error) {
    throw clientStreamError(error);
  }
}

/** The account's language; dates as the visitor's browser writes them in it (Accept-Language). */
function pageLanguage(ctx: Context, locale: Locale): PageLanguage {
  return { locale, dateLocale: dateLocale(ctx.get('Accept-Language') || undefined, locale) };
}

async function orderOrNull(deps: VideoRouteDeps, uuid: string): Promise<OrderRow | null> {
  try {
    return await deps.orders.getByUuid(uuid);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/**
 * A link pasted or auto-linked with the sentence's punctuation still on it — `…/watch/{uuid}.` at the
 * end of a sentence, `(…/watch/{uuid})` in a chat — was "We can't find this video message" (gift
 * pages probe). It is sent on to the link itself. True when it redirected.
 */
function redirectedPastTrailingPunctuation(ctx: Context, prefix: '/record/' | '/watch/'): boolean {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})[.,;:!?)\]}'"»>]+$/i.exec(
    ctx.params.uuid ?? '',
  );
  if (!match) return false;
  ctx.status = 301;
  ctx.redirect(`${prefix}${match[1]!.toLowerCase()}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  return true;
}
