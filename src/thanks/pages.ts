import type { Context } from 'koa';
import type { Locale } from '../i18n/locale.ts';
import type { StoreBranding } from '../accounts/store-branding.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { ThanksFormData } from '../videos/browser/page-data.ts';
import { html, type SafeHtml } from '../videos/html.ts';
import { recorderMarkup, sayIn, sendPage, type Say } from '../videos/pages.ts';
import { VIDEO_CONTENT_TYPES } from '../videos/service.ts';
import type { VideoRow } from '../videos/videos.ts';
import { THANKS_NOTE_MAX_LENGTH, type ThanksState } from './service.ts';
import type { ThanksRow } from './thanks.ts';

export interface ThanksLimits {
  maxBytes: number;
  /** THANKS_MAX_SECONDS */
  maxSeconds: number;
  /** THANKS_SEND_DELAY_SECONDS */
  sendDelaySeconds: number;
}

/**
 * The watch page's thank-you part, under the gift, in the page's language: nothing before the gift
 * was sent; the recorder (ids `thanks-…`) and a note form while a reply may be given or replaced; a
 * sentence once it went. Every word is the catalogue's (`page_thanks_…`, src/i18n/catalogue.ts).
 */
export function thanksSection(
  order: OrderRow,
  state: ThanksState,
  limits: ThanksLimits,
  locale: Locale,
): { body: SafeHtml; form: ThanksFormData | null } | undefined {
  if (state.kind === 'closed') return undefined;
  const say = sayIn(locale);
  const sender = { sender_name: order.name };
  if (state.kind === 'sent')
    return {
      body: html`<section class="thanks" aria-labelledby="thanks-heading">
<h2 id="thanks-heading">${say('page_thanks_heading')}</h2>
<p id="thanks-state" class="status ok">${say(state.reply.reply === 'video' ? 'page_thanks_sent_video' : 'page_thanks_sent_note', sender)}</p>
</section>`,
      form: null,
    };
  const noEmail = order.email.trim() === '';
  const lead =
    state.kind === 'waiting'
      ? noEmail
        ? say('page_thanks_no_sender_email', sender)
        : say(state.reply.reply === 'video' ? 'page_thanks_waiting_video' : 'page_thanks_waiting_note', sender)
      : say('page_thanks_invite', sender);
  const note = state.kind === 'waiting' && state.reply.reply === 'note' ? (state.reply.note ?? '') : '';
  return {
    body: html`<section class="thanks" aria-labelledby="thanks-heading">
<h2 id="thanks-heading">${say('page_thanks_heading')}</h2>
<p id="thanks-state">${lead}</p>
<noscript><p class="muted">${say('page_thanks_needs_script')}</p></noscript>
<div id="thanks-reply" hidden>
${recorderMarkup({ idPrefix: 'thanks-', maxSeconds: limits.maxSeconds, sendLabel: say('page_thanks_send_video'), say })}
<form id="thanks-note" novalidate>
  <label for="thanks-note-text">${say('page_thanks_note_label')}</label>
  <textarea id="thanks-note-text" name="note" rows="4" maxlength="${THANKS_NOTE_MAX_LENGTH}" aria-describedby="thanks-note-hint">${note}</textarea>
  <p class="muted" id="thanks-note-hint">${say('page_thanks_note_hint', { max_chars: THANKS_NOTE_MAX_LENGTH })}</p>
  <div class="actions"><button type="submit" class="primary" id="thanks-send-note">${say('page_thanks_send_note')}</button></div>
  <p id="thanks-note-status" class="status" role="status" aria-live="polite"></p>
</form>
</div>
</section>`,
    form: {
      uploadUrl: `/watch/${order.uuid}/thanks/uploads`,
      noteUrl: `/watch/${order.uuid}/thanks/note`,
      maxBytes: limits.maxBytes,
      maxSeconds: limits.maxSeconds,
      types: [...VIDEO_CONTENT_TYPES],
      noteMaxLength: THANKS_NOTE_MAX_LENGTH,
      receivedText: noEmail
        ? say('page_thanks_no_sender_email', sender)
        : receivedText(say, order.name, Math.ceil(limits.sendDelaySeconds / 60)),
    },
  };
}

/** What the page says once a reply arrived: when the sender gets it (one minute has its own words). */
function receivedText(say: Say, sender: string, delayMinutes: number): string {
  if (delayMinutes <= 0) return say('page_thanks_received_now', { sender_name: sender });
  if (delayMinutes === 1) return say('page_thanks_received_one_minute', { sender_name: sender });
  return say('page_thanks_received_minutes', { sender_name: sender, minutes: delayMinutes });
}

/**
 * The sender's page behind `/thanks/{key}`: the reply video or note, with the store's branding, in
 * the account's language (the sender's e-mail that links here is in it too).
 */
export function thanksPage(
  ctx: Context,
  view: {
    reply: ThanksRow;
    order: OrderRow;
    video: VideoRow | null;
    store: StoreBranding;
    locale: Locale;
    /** The sender's own gift (its watch page) and the store online, when known. */
    links: { gift: string; store: string | null };
    mediaOrigin?: string;
  },
): void {
  const { reply, order, video, store, locale, links } = view;
  const say = sayIn(locale);
  const base = `/thanks/${reply.key}`;
  const recipient = { recipient_name: order.recipient_name };
  sendPage(ctx, 200, {
    locale,
    title: say('page_thanks_title', recipient),
    store,
    // The same reveal as the recipient's: who it is from, the title, the reply on the stage.
    body: html`<div class="reveal-in">
<h1 class="title">${say('page_thanks_title', recipient)}</h1>
<p class="from">${say('page_thanks_intro', { ...recipient, video_title: order.video_title, store_name: store.name })}</p>
</div>
${
  reply.reply === 'video' && video
    ? html`<div class="stage"><video id="thanks-video" controls playsinline preload="metadata" src="${base}/video" aria-label="${say('page_thanks_video_label', recipient)}"${video.poster_key ? html` poster="${base}/poster"` : ''}></video></div>`
    : html`<blockquote class="note" id="thanks-note" aria-label="${say('page_thanks_note_from', recipient)}">${reply.note ?? ''}</blockquote>`
}
<nav class="links" aria-label="${store.name}">
<a class="button primary wide" id="watch-gift" href="${links.gift}">${say('page_thanks_watch_gift')}</a>
${links.store ? html`<a class="button wide" id="visit-store" href="${links.store}">${say('page_thanks_visit_store', { store_name: store.name })}</a>` : ''}
</nav>`,
    ...(view.mediaOrigin ? { mediaOrigin: view.mediaOrigin } : {}),
  });
}

/** A thank-you link that leads nowhere: in the visitor's language when we speak it (`visitorLocale`). */
export function thanksNotFoundPage(ctx: Context, locale: Locale): void {
  const say = sayIn(locale);
  sendPage(ctx, 404, {
    locale,
    title: say('page_thanks_not_found_title'),
    body: html`<h1>${say('page_thanks_not_found_heading')}</h1>
<p>${say('page_thanks_not_found_body')}</p>`,
  });
}
