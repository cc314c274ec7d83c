import { pageHeaders } from '../http/page-headers.ts';
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { OrderRow } from '../orders/serializer.ts';
import type { BrowserAsset } from './browser-assets.ts';
import { PAGE_DATA_ID, type RecordPageData, type ThanksFormData, type WatchPageData } from './browser/page-data.ts';
import type { StoreBranding } from '../accounts/store-branding.ts';
import { durationText } from './browser/duration-text.ts';
import { html, jsonScriptContent, phraseHtml, SafeHtml } from './html.ts';
import { phraseOf, type PhraseKey } from '../i18n/catalogue.ts';
import { dayText } from '../i18n/dates.ts';
import type { Locale } from '../i18n/locale.ts';
import { phrase, scriptPhrases } from '../i18n/phrases.ts';
import { VIDEO_CONTENT_TYPES } from './service.ts';
import { UNNAMED_RECIPIENT } from '../orders/recipient.ts';
import { TRANSCRIPT_MAX_CHARS } from './captions.ts';

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
#transcript-field { display: grid; gap: 0.35rem; margin: 0.5rem 0; }
#transcript-field textarea { font: inherit; padding: 0.6rem; border-radius: 0.4rem; border: 1px solid #888; resize: vertical; min-height: 4.5rem; }
#transcript-field textarea:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
form#thanks-note textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 0.6rem; border-radius: 0.4rem; border: 1px solid #888; }
section.thanks { margin-top: 2rem; padding-top: 1rem; border-top: 1px solid color-mix(in srgb, CanvasText 15%, transparent); }
blockquote.note { margin: 1rem 0; padding: 1rem 1.25rem; border-left: 4px solid #b4232a; white-space: pre-line; font-size: 1.15rem; font-style: italic; }
form#recipient input { font: inherit; padding: 0.6rem; border-radius: 0.4rem; border: 1px solid #888; }
header.store { display: flex; align-items: center; gap: 0.6rem; padding-bottom: 0.75rem; margin-bottom: 0.5rem; border-bottom: 1px solid color-mix(in srgb, CanvasText 15%, transparent); }
.store-name { margin: 0; font-weight: 700; letter-spacing: 0.02em; }
.store-logo { max-height: 2.5rem; max-width: 8rem; }
[hidden] { display: none !important; }
`;

interface PageOptions {
  /** The language the page is written in: `<html lang>`. */
  locale: Locale;
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
<html lang="${options.locale}">
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

/** The page's words in its language: a catalogue phrase, filled (plain text; `html` escapes it). */
export type Say = (key: PhraseKey, values?: Record<string, string | number>) => string;
export const sayIn =
  (locale: Locale): Say =>
  (key, values) =>
    phrase(locale, key, values);

/** A page about no order: in the visitor's language when we speak it (`visitorLocale`). */
export function notFoundPage(ctx: Context, locale: Locale): void {
  const say = sayIn(locale);
  sendPage(ctx, 404, {
    locale,
    title: say('page_not_found_title'),
    body: html`<h1>${say('page_not_found_heading')}</h1>
<p>${say('page_not_found_body')}</p>`,
  });
}

/** The recipient as the page names them: a recipient nobody named is "your recipient" in its language. */
function recipientName(order: OrderRow, say: Say): string {
  return order.recipient_name === UNNAMED_RECIPIENT ? say('page_unnamed_recipient') : order.recipient_name;
}

/** How a page speaks: the account's language, and the visitor's way of writing dates (`dateLocale`). */
export interface PageLanguage {
  locale: Locale;
  dateLocale: string;
}

export interface RecordView {
  language: PageLanguage;
  limits: { maxBytes: number; maxSeconds: number };
  /** whatHappensNext's sentence: who gets the video, and when. */
  nextStep: string;
  store: StoreBranding;
  script: BrowserAsset;
}

export function recordPage(ctx: Context, order: OrderRow, view: RecordView): void {
  const { language, limits, nextStep, store, script } = view;
  const { locale } = language;
  const say = sayIn(locale);
  const recipient = { recipient_name: recipientName(order, say) };
  if (order.status === 'cancelled' || order.sent_at !== null) {
    sendPage(ctx, 200, {
      locale,
      title: say('page_video_message'),
      store,
      body: html`<h1>${say('page_record_closed_heading')}</h1>
<p>${order.status === 'cancelled' ? say('page_record_closed_cancelled') : say('page_record_closed_sent', recipient)}</p>`,
    });
    return;
  }
  const needsRecipient = order.recipient_email === null && order.recipient_phone === null;
  sendPage(ctx, 200, {
    locale,
    title: needsRecipient ? say('page_record_title_no_recipient') : say('page_record_title', recipient),
    camera: true,
    store,
    body: html`${
      needsRecipient
        ? recipientForm(order, say)
        : html`<h1>${say('page_record_heading', recipient)}</h1>
<p class="muted" id="next-step">${say('page_quoted_title', { video_title: order.video_title })}. ${nextStep}${order.video_processed ? ` ${say('page_record_replaces')}` : ''}</p>`
    }
${recorderMarkup({ idPrefix: '', maxSeconds: limits.maxSeconds, sendLabel: say('page_record_send'), say, beforeSend: transcriptField(say) })}`,
    script: {
      asset: script,
      data: {
        uploadUrl: `/record/${order.uuid}/uploads`,
        maxBytes: limits.maxBytes,
        maxSeconds: limits.maxSeconds,
        types: [...VIDEO_CONTENT_TYPES],
        recipientUrl: needsRecipient ? `/record/${order.uuid}/recipient` : null,
        phrases: scriptPhrases(locale),
      } satisfies RecordPageData,
    },
  });
}

/**
 * The recorder's markup (its script: browser/recorder.ts), the same on the record page (gift) and the
 * watch page (the recipient's thank-you reply), whose ids start with `idPrefix`.
 */
export function recorderMarkup(options: {
  idPrefix: string;
  maxSeconds: number;
  sendLabel: string;
  /** The page's words (English where the page has no language yet). */
  say?: Say;
  /** Fields that go with the video, shown above the send button (the gift's transcript). */
  beforeSend?: SafeHtml;
}): SafeHtml {
  const id = (name: string) => `${options.idPrefix}${name}`;
  const say = options.say ?? sayIn('en');
  return html`<div id="${id('recorder')}">
  <video id="${id('preview')}" playsinline muted aria-label="${say('page_record_camera_preview')}" hidden></video>
  <video id="${id('playback')}" playsinline controls aria-label="${say('page_record_your_recording')}" hidden></video>
  <div class="actions">
    <button type="button" id="${id('camera')}">${say('page_record_use_camera')}</button>
    <button type="button" id="${id('record')}" hidden>${say('page_record_start')}</button>
    <button type="button" id="${id('stop')}" hidden>${say('page_record_stop')}</button>
    <label class="file">${say('page_record_choose_file')}<input type="file" id="${id('file')}" accept="video/mp4,video/webm,video/quicktime"></label>
  </div>
  ${options.beforeSend ?? ''}
  <div class="actions">
    <button type="button" class="primary" id="${id('send')}" disabled>${options.sendLabel}</button>
  </div>
  <p class="muted" id="${id('limit')}">${say('page_record_limit', { duration: durationText(options.maxSeconds) })}</p>
  <p id="${id('timer')}" class="timer" hidden></p>
  <progress id="${id('progress')}" max="100" value="0" hidden aria-label="${say('page_record_progress')}"></progress>
  <p id="${id('status')}" class="status" role="status" aria-live="polite"></p>
</div>`;
}

/** The gift's optional transcript, the watch page's captions (docs/videos.md "Captions"). */
function transcriptField(say: Say): SafeHtml {
  return html`<div id="transcript-field">
    <label for="transcript">${say('page_transcript_label')}</label>
    <textarea id="transcript" name="transcript" rows="3" maxlength="${TRANSCRIPT_MAX_CHARS}" aria-describedby="transcript-hint"></textarea>
    <p class="muted" id="transcript-hint">${say('page_transcript_hint', { max_chars: TRANSCRIPT_MAX_CHARS })}</p>
  </div>`;
}

/**
 * A Shopify order can come without a way to reach the recipient: the sender says who it is for,
 * before or after recording (the page script PUTs it as JSON and reloads).
 */
function recipientForm(order: OrderRow, say: Say): SafeHtml {
  const name = order.recipient_name === UNNAMED_RECIPIENT ? '' : order.recipient_name;
  return html`<h1>${say('page_recipient_heading')}</h1>
<p class="muted">${say('page_recipient_intro', { video_title: order.video_title })}</p>
<form id="recipient" novalidate>
  <label for="recipient-name">${say('page_recipient_name')}</label>
  <input id="recipient-name" name="recipient_name" autocomplete="off" maxlength="200" required value="${name}">
  <label for="recipient-email">${say('page_recipient_email')}</label>
  <input id="recipient-email" name="recipient_email" type="email" autocomplete="off" maxlength="254">
  <label for="recipient-phone">${say('page_recipient_phone')}</label>
  <input id="recipient-phone" name="recipient_phone" type="tel" autocomplete="off" maxlength="32" placeholder="+1 555 010 0100">
  <div class="actions"><button type="submit" class="primary" id="save-recipient">${say('page_recipient_save')}</button></div>
  <p id="recipient-status" class="status" role="status" aria-live="polite"></p>
</form>`;
}

export interface WatchView {
  language: PageLanguage;
  hasVideo: boolean;
  /** The video has a poster frame (`/watch/{uuid}/poster`), shown before it plays. */
  hasPoster: boolean;
  /** The sender typed what they say: the player gets a captions track (`/watch/{uuid}/captions.vtt`). */
  hasCaptions: boolean;
  store: StoreBranding;
  script: BrowserAsset;
  /** Object storage the video route redirects the player to, when it does. */
  mediaOrigin?: string | undefined;
  /** The recipient's thank-you part under the video (src/thanks/pages.ts), once the gift was sent. */
  thanks?: { body: SafeHtml; form: ThanksFormData | null };
}

export function watchPage(ctx: Context, order: OrderRow, view: WatchView): void {
  const { language, hasVideo, hasPoster, hasCaptions, store, script, mediaOrigin, thanks } = view;
  const { locale } = language;
  const say = sayIn(locale);
  if (order.status === 'cancelled') {
    sendPage(ctx, 200, {
      locale,
      title: say('page_video_message'),
      store,
      body: html`<h1>${say('page_watch_unavailable')}</h1>`,
    });
    return;
  }
  if (!hasVideo) {
    sendPage(ctx, 200, {
      locale,
      title: order.video_title,
      store,
      body: html`<h1>${order.video_title}</h1>
<p id="on-its-way">${say('page_watch_on_its_way', { sender_name: order.name })}</p>`,
    });
    return;
  }
  // The day it was sent, on the recipient's calendar as their browser writes dates (UTC: we do not
  // know their zone, and the day is what matters).
  const sentOn = order.sent_at
    ? html`<p class="muted" id="sent-on">${say('page_watch_sent_on', { date: dayText(order.sent_at, language.dateLocale, null) })}</p>
`
    : '';
  sendPage(ctx, 200, {
    locale,
    title: order.video_title,
    store,
    body: html`<h1>${order.video_title}</h1>
<p>${phraseHtml(phraseOf(locale, 'page_watch_from'), { sender_name: html`<strong id="sender">${order.name}</strong>`, store_name: store.name })}</p>
${sentOn}<video id="message" controls playsinline preload="metadata" src="/watch/${order.uuid}/video"${hasPoster ? html` poster="/watch/${order.uuid}/poster"` : ''}>${hasCaptions ? captionsTrack(order, locale) : ''}</video>
${thanks?.body ?? ''}`,
    // The thank-you recorder needs the camera; the page asks only when the recipient presses it.
    camera: Boolean(thanks?.form),
    script: {
      asset: script,
      data: {
        viewedUrl: `/watch/${order.uuid}/viewed`,
        thanks: thanks?.form ?? null,
        phrases: scriptPhrases(locale),
      } satisfies WatchPageData,
    },
    ...(mediaOrigin ? { mediaOrigin } : {}),
  });
}

/**
 * The captions track: `default`, so they show without a trip to the player's menu (the sender wrote
 * them to be read); the native controls let the recipient turn them off.
 */
function captionsTrack(order: OrderRow, locale: Locale): SafeHtml {
  // srclang: the sender is taken to type in the page's language (the store's).
  return html`<track kind="captions" src="/watch/${order.uuid}/captions.vtt" srclang="${locale}" label="${phrase(locale, 'page_captions_label')}" default>`;
}
