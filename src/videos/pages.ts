import { isolateDirectionality } from '../i18n/bidi.ts';
import { pageStylesheet } from '../design/page-style.ts';
import { pageHeaders } from '../http/page-headers.ts';
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { OrderRow } from '../orders/serializer.ts';
import type { BrowserAsset } from './browser-assets.ts';
import { PAGE_DATA_ID, type RecordPageData, type ThanksFormData, type WatchPageData } from './browser/page-data.ts';
import type { StoreBranding } from '../accounts/store-branding.ts';
import { durationText } from './browser/duration-text.ts';
import { html, jsonScriptContent, phraseHtml, SafeHtml } from './html.ts';
import type { PhraseKey } from '../i18n/catalogue.ts';
import { dayText } from '../i18n/dates.ts';
import type { Locale } from '../i18n/locale.ts';
import { phrase, phraseTemplate, scriptPhrases } from '../i18n/phrases.ts';
import { VIDEO_CONTENT_TYPES } from './service.ts';
import { UNNAMED_RECIPIENT } from '../orders/recipient.ts';
import { TRANSCRIPT_MAX_CHARS } from './captions.ts';

/**
 * The two public pages behind `record_url` and `playback_url`: plain HTML, the design system's one
 * stylesheet inlined (src/design/page-style.ts, in the store's accent and font) and a small script
 * of our own (src/videos/browser/, bundled by browser-assets.ts; no framework), readable on a phone.
 * The uuid in the URL is the capability, so pages are never cached, never framed and never leak
 * their URL in a Referer.
 */

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
<style nonce="${nonce}">${new SafeHtml(pageStylesheet(options.store?.brand))}</style>
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
  /** The sender's newest upload could not be used (its reason is in English, from processing). */
  failedUpload?: { reason: string | null } | null;
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
<p class="lead" id="video-title">${say('page_quoted_title', { video_title: order.video_title })}</p>
<p class="muted" id="next-step">${nextStep}${order.video_processed ? ` ${say('page_record_replaces')}` : ''}</p>`
    }${failedUploadNotice(order, view.failedUpload, locale)}
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
 * The newest upload could not be used: said at the top of the page, with the reason (in English
 * pages; processing's reasons are English, so other languages say the kinds of reason instead), and
 * whether an earlier video still goes out.
 */
function failedUploadNotice(order: OrderRow, failed: RecordView['failedUpload'], locale: Locale): SafeHtml | string {
  if (!failed) return '';
  const say = sayIn(locale);
  const reason = locale === 'en' && failed.reason ? failed.reason : say('page_record_failed_generic');
  const words = say(order.video_processed ? 'page_record_failed_kept' : 'page_record_failed', { reason });
  return html`
<p class="status error" id="upload-failed" role="alert">${words}</p>`;
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
  // One screen per state (recorder.ts sets `data-state`): each element names the states it shows in,
  // and the page's stylesheet hides it in the others. Without the script, the first screen stays.
  return html`<div id="${id('recorder')}" class="recorder" data-state="before">
  <div class="recorder-stage" data-show="camera recording">
    <video id="${id('preview')}" playsinline muted aria-label="${say('page_record_camera_preview')}" hidden></video>
    <p id="${id('countdown')}" class="countdown" aria-live="assertive" hidden></p>
  </div>
  <video id="${id('playback')}" playsinline controls aria-label="${say('page_record_your_recording')}" data-show="preview uploading" hidden></video>
  <div class="actions" data-show="before camera recording preview">
    <button type="button" class="primary" id="${id('camera')}" data-show="before">${say('page_record_use_camera')}</button>
    <button type="button" class="primary" id="${id('record')}" data-show="camera preview" hidden>${say('page_record_start')}</button>
    <button type="button" class="primary" id="${id('stop')}" data-show="recording" hidden>${say('page_record_stop')}</button>
    <label class="file" data-show="before camera preview">${say('page_record_choose_file')}<input type="file" id="${id('file')}" accept="video/mp4,video/webm,video/quicktime"></label>
  </div>
  <div data-show="preview">${options.beforeSend ?? ''}</div>
  <div class="actions" data-show="preview uploading">
    <button type="button" class="primary wide" id="${id('send')}" disabled>${options.sendLabel}</button>
  </div>
  <p class="muted" id="${id('limit')}" data-show="before camera">${say('page_record_limit', { duration: durationText(options.maxSeconds) })}</p>
  <p id="${id('timer')}" class="timer" data-show="recording" hidden></p>
  <progress id="${id('progress')}" max="100" value="0" data-show="uploading" hidden aria-label="${say('page_record_progress')}"></progress>
  <div class="outcome" id="${id('outcome')}" tabindex="-1">
    <div class="spinner" data-show="processing" aria-hidden="true"></div>
    <div class="mark" data-show="sent" aria-hidden="true">✓</div>
    <p id="${id('status')}" class="status" role="status" aria-live="polite"></p>
  </div>
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
  /** The reply recorder's script, loaded by the page's own when the reply is invited. */
  thanksScript: BrowserAsset;
  /** Object storage the video route redirects the player to, when it does. */
  mediaOrigin?: string | undefined;
  /** The recipient's thank-you part under the video (src/thanks/pages.ts), once the gift was sent. */
  thanks?: { body: SafeHtml; form: ThanksFormData | null };
}

export function watchPage(ctx: Context, order: OrderRow, view: WatchView): void {
  const { language, hasVideo, hasPoster, hasCaptions, store, script, thanksScript, mediaOrigin, thanks } = view;
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
  // The day it was sent, on the recipient's own calendar: written in UTC here (we do not know her
  // zone), and again by the page's script in her browser's (sent at 22:00 UTC is the next morning in
  // Sydney). The `<time>` carries the instant and the visitor's way of writing dates.
  const sentOn = order.sent_at
    ? html`<p class="muted" id="sent-on">${phraseHtml(phraseTemplate(locale, 'page_watch_sent_on', {}), { date: html`<time id="sent-on-date" datetime="${order.sent_at.toISOString()}" data-date-locale="${language.dateLocale}">${dayText(order.sent_at, language.dateLocale, null)}</time>` })}</p>
`
    : '';
  const videoUrl = `/watch/${order.uuid}/video`;
  // The reply comes after the gift: hidden until she has watched it (the script shows it on `ended`
  // or most of the way through), shown at once to someone who already did.
  const afterWatch = thanks
    ? html`<div id="after-watch"${order.viewed_at === null ? html` hidden` : ''}>${thanks.body}</div>`
    : '';
  sendPage(ctx, 200, {
    locale,
    title: order.video_title,
    store,
    body: html`<div class="reveal-in">
<p class="from">${phraseHtml(phraseTemplate(locale, 'page_watch_from', { sender_name: order.name, store_name: store.name }), { sender_name: html`<strong id="sender">${isolateDirectionality(order.name)}</strong>`, store_name: store.name })}</p>
<h1 class="title">${order.video_title}</h1>
${sentOn}</div>
<div class="stage" id="stage">
<video id="message" controls playsinline preload="metadata" src="${videoUrl}"${hasPoster ? html` poster="/watch/${order.uuid}/poster"` : ''}>${hasCaptions ? captionsTrack(order, locale) : ''}</video>
${hasPoster ? html`<img class="poster" src="/watch/${order.uuid}/poster" alt="" fetchpriority="high">` : ''}
<a class="play" id="play" href="${videoUrl}" role="button" aria-label="${say('page_watch_play')}">${PLAY_SYMBOL}</a>
</div>
${afterWatch}`,
    // The thank-you recorder needs the camera; the page asks only when the recipient presses it.
    camera: Boolean(thanks?.form),
    script: {
      asset: script,
      data: {
        viewedUrl: `/watch/${order.uuid}/viewed`,
        thanks: thanks?.form ?? null,
        thanksScript: thanks?.form ? { url: thanksScript.url, integrity: thanksScript.integrity } : null,
        phrases: scriptPhrases(locale),
      } satisfies WatchPageData,
    },
    ...(mediaOrigin ? { mediaOrigin } : {}),
  });
}

/** The play button's triangle: drawn, so it is crisp at any size and needs no request. */
const PLAY_SYMBOL = new SafeHtml(
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M7 4.5v15a1 1 0 0 0 1.5.86l12.5-7.5a1 1 0 0 0 0-1.72L8.5 3.64A1 1 0 0 0 7 4.5z"/></svg>',
);

/**
 * The captions track: `default`, so they show without a trip to the player's menu (the sender wrote
 * them to be read); the native controls let the recipient turn them off.
 */
function captionsTrack(order: OrderRow, locale: Locale): SafeHtml {
  // srclang: the sender is taken to type in the page's language (the store's).
  return html`<track kind="captions" src="/watch/${order.uuid}/captions.vtt" srclang="${locale}" label="${phrase(locale, 'page_captions_label')}" default>`;
}
