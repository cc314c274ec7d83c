import { pageHeaders } from '../http/page-headers.ts';
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { OrderRow } from '../orders/serializer.ts';
import type { BrowserAsset } from './browser-assets.ts';
import { PAGE_DATA_ID, type RecordPageData, type WatchPageData } from './browser/page-data.ts';
import type { StoreBranding } from '../accounts/store-branding.ts';
import { durationText } from './browser/duration-text.ts';
import { html, jsonScriptContent, SafeHtml } from './html.ts';
import { VIDEO_CONTENT_TYPES } from './service.ts';
import { UNNAMED_RECIPIENT } from '../orders/recipient.ts';

/**
 * The two public pages behind `record_url` and `playback_url`: plain HTML, inline CSS and a small
 * script of our own (src/videos/browser/, bundled by browser-assets.ts; no framework), readable on
 * a phone. The uuid in the URL is the capability, so pages are never cached, never framed and never
 * leak their URL in a Referer.
 */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 1rem; display: flex; justify-content: center; }
main { width: 100%; max-width: 36rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
video { width: 100%; max-height: 60vh; background: #000; border-radius: 0.5rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 1rem 0; }
button, .file { font: inherit; font-size: 1.05rem; padding: 0.75rem 1.1rem; min-height: 2.75rem; border-radius: 0.5rem; border: 1px solid #888; background: Canvas; color: CanvasText; cursor: pointer; }
button.primary { background: #0b5cad; color: #fff; border-color: #0b5cad; }
button:disabled { opacity: 0.5; cursor: not-allowed; }
button:focus-visible, .file:focus-within { outline: 3px solid #f5a623; outline-offset: 2px; }
.file input { position: absolute; width: 1px; height: 1px; opacity: 0; }
progress { width: 100%; height: 1rem; }
.status { font-weight: 600; min-height: 1.5em; }
.timer { font-variant-numeric: tabular-nums; font-size: 1.25rem; font-weight: 600; margin: 0.25rem 0; }
.timer.ending { color: #c62828; }
.status.error { color: #c62828; }
.status.ok { color: #2e7d32; }
.muted { opacity: 0.8; }
form#recipient { display: grid; gap: 0.35rem; margin-bottom: 1.5rem; }
form#recipient input { font: inherit; padding: 0.6rem; border-radius: 0.4rem; border: 1px solid #888; }
header.store { display: flex; align-items: center; gap: 0.6rem; padding-bottom: 0.75rem; margin-bottom: 0.5rem; border-bottom: 1px solid color-mix(in srgb, CanvasText 15%, transparent); }
.store-name { margin: 0; font-weight: 700; letter-spacing: 0.02em; }
.store-logo { max-height: 2.5rem; max-width: 8rem; }
[hidden] { display: none !important; }
`;

interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The page's bundled script and the data it reads (JSON, never spliced into code). */
  script?: { asset: BrowserAsset; data: RecordPageData | WatchPageData };
  /** The record page needs the camera and microphone; no other page does. */
  camera?: boolean;
  /** Another origin the page's video may load from (object storage the video route redirects to). */
  mediaOrigin?: string;
  /** The store the gift comes from, named at the top of the page (absent on pages about no order). */
  store?: StoreBranding;
}

export function sendPage(ctx: Context, status: number, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set({
    ...pageHeaders(nonce, {
      media: ["'self'", 'blob:', ...(options.mediaOrigin ? [options.mediaOrigin] : [])],
      // The logo is an https URL (account settings validate it); only its origin is allowed.
      ...(options.store?.logoUrl ? { img: [new URL(options.store.logoUrl).origin] } : {}),
    }),
    'Permissions-Policy': options.camera ? 'camera=(self), microphone=(self)' : 'camera=(), microphone=()',
  });
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${options.title}</title>
<style nonce="${nonce}">${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
${options.store ? storeHeader(options.store) : ''}${options.body}
</main>
${options.script ? pageScript(options.script, nonce) : ''}
</body>
</html>
`.value;
}

/**
 * The data block is not executed, so CSP does not apply to it; the script itself is ours, from our
 * origin, allowed by the nonce and pinned by its hash.
 */
function pageScript(script: NonNullable<PageOptions['script']>, nonce: string): SafeHtml {
  return html`<script type="application/json" id="${PAGE_DATA_ID}">${jsonScriptContent(script.data)}</script>
<script src="${script.asset.url}" integrity="${script.asset.integrity}" nonce="${nonce}"></script>`;
}

/** The store's name (and logo, when the account's settings or Shopify give one) above everything else on the page. */
function storeHeader(store: StoreBranding): SafeHtml {
  return html`<header class="store">${store.logoUrl ? html`<img src="${store.logoUrl}" alt="${store.name}" class="store-logo">` : ''}<p class="store-name">${store.name}</p></header>
`;
}

export function notFoundPage(ctx: Context): void {
  sendPage(ctx, 404, {
    title: 'Video message not found',
    body: html`<h1>We can't find this video message</h1>
<p>The link may be incomplete, or the message may have been removed. Please check that you opened the whole link from your e-mail or text message.</p>`,
  });
}

export interface RecordView {
  limits: { maxBytes: number; maxSeconds: number };
  /** whatHappensNext's sentence: who gets the video, and when. */
  nextStep: string;
  store: StoreBranding;
  script: BrowserAsset;
}

export function recordPage(ctx: Context, order: OrderRow, view: RecordView): void {
  const { limits, nextStep, store, script } = view;
  if (order.status === 'cancelled' || order.sent_at !== null) {
    sendPage(ctx, 200, {
      title: 'Video message',
      store,
      body: html`<h1>This video message can no longer be recorded</h1>
<p>${order.status === 'cancelled' ? 'The order was cancelled.' : `Your video has already been sent to ${order.recipient_name}.`}</p>`,
    });
    return;
  }
  const needsRecipient = order.recipient_email === null && order.recipient_phone === null;
  sendPage(ctx, 200, {
    title: needsRecipient ? 'Record a video message' : `Record a video for ${order.recipient_name}`,
    camera: true,
    store,
    body: html`${
      needsRecipient
        ? recipientForm(order)
        : html`<h1>Record a video message for ${order.recipient_name}</h1>
<p class="muted" id="next-step">“${order.video_title}”. ${nextStep}${order.video_processed ? ' You have already sent a video; a new one replaces it until it goes out.' : ''}</p>`
    }
<div id="recorder">
  <video id="preview" playsinline muted aria-label="Camera preview" hidden></video>
  <video id="playback" playsinline controls aria-label="Your recording" hidden></video>
  <div class="actions">
    <button type="button" id="camera">Use the camera</button>
    <button type="button" id="record" hidden>Start recording</button>
    <button type="button" id="stop" hidden>Stop recording</button>
    <label class="file">Choose a video file<input type="file" id="file" accept="video/mp4,video/webm,video/quicktime"></label>
  </div>
  <div class="actions">
    <button type="button" class="primary" id="send" disabled>Send video</button>
  </div>
  <p class="muted" id="limit">Up to ${durationText(limits.maxSeconds)} long.</p>
  <p id="timer" class="timer" hidden></p>
  <progress id="progress" max="100" value="0" hidden aria-label="Upload progress"></progress>
  <p id="status" class="status" role="status" aria-live="polite"></p>
</div>`,
    script: {
      asset: script,
      data: {
        uploadUrl: `/record/${order.uuid}/video`,
        maxBytes: limits.maxBytes,
        maxSeconds: limits.maxSeconds,
        types: [...VIDEO_CONTENT_TYPES],
        recipientUrl: needsRecipient ? `/record/${order.uuid}/recipient` : null,
      } satisfies RecordPageData,
    },
  });
}

/**
 * A Shopify order can come without a way to reach the recipient: the sender says who it is for,
 * before or after recording (the page script PUTs it as JSON and reloads).
 */
function recipientForm(order: OrderRow): SafeHtml {
  const name = order.recipient_name === UNNAMED_RECIPIENT ? '' : order.recipient_name;
  return html`<h1>Who is your video message for?</h1>
<p class="muted">Your order did not say how to reach the recipient. Tell us, and we send “${order.video_title}” to them when the gift arrives.</p>
<form id="recipient" novalidate>
  <label for="recipient-name">Their name</label>
  <input id="recipient-name" name="recipient_name" autocomplete="off" maxlength="200" required value="${name}">
  <label for="recipient-email">Their e-mail address</label>
  <input id="recipient-email" name="recipient_email" type="email" autocomplete="off" maxlength="254">
  <label for="recipient-phone">Their mobile number (for a text message)</label>
  <input id="recipient-phone" name="recipient_phone" type="tel" autocomplete="off" maxlength="32" placeholder="+1 555 010 0100">
  <div class="actions"><button type="submit" class="primary" id="save-recipient">Save recipient</button></div>
  <p id="recipient-status" class="status" role="status" aria-live="polite"></p>
</form>`;
}

export interface WatchView {
  hasVideo: boolean;
  /** The video has a poster frame (`/watch/{uuid}/poster`), shown before it plays. */
  hasPoster: boolean;
  store: StoreBranding;
  script: BrowserAsset;
  /** Object storage the video route redirects the player to, when it does. */
  mediaOrigin?: string | undefined;
}

export function watchPage(ctx: Context, order: OrderRow, view: WatchView): void {
  const { hasVideo, hasPoster, store, script, mediaOrigin } = view;
  if (order.status === 'cancelled') {
    sendPage(ctx, 200, {
      title: 'Video message',
      store,
      body: html`<h1>This video message is no longer available</h1>`,
    });
    return;
  }
  if (!hasVideo) {
    sendPage(ctx, 200, {
      title: order.video_title,
      store,
      body: html`<h1>${order.video_title}</h1>
<p id="on-its-way">A video message from ${order.name} is on its way. Please check back soon.</p>`,
    });
    return;
  }
  sendPage(ctx, 200, {
    title: order.video_title,
    store,
    body: html`<h1>${order.video_title}</h1>
<p>A video message from <strong id="sender">${order.name}</strong>, with a gift from ${store.name}</p>
<video id="message" controls playsinline preload="metadata" src="/watch/${order.uuid}/video"${hasPoster ? html` poster="/watch/${order.uuid}/poster"` : ''}></video>`,
    script: { asset: script, data: { viewedUrl: `/watch/${order.uuid}/viewed` } satisfies WatchPageData },
    ...(mediaOrigin ? { mediaOrigin } : {}),
  });
}
