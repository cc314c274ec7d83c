import type { Context } from 'koa';
import type { StoreBranding } from '../accounts/store-branding.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { ThanksFormData } from '../videos/browser/page-data.ts';
import { html, type SafeHtml } from '../videos/html.ts';
import { recorderMarkup, sendPage } from '../videos/pages.ts';
import { VIDEO_CONTENT_TYPES } from '../videos/service.ts';
import type { VideoRow } from '../videos/videos.ts';
import { THANKS_NOTE_MAX_LENGTH, type ThanksState } from './service.ts';
import type { ThanksRow } from './thanks.ts';
import { THANKS_WORDS as W } from './words.ts';

export interface ThanksLimits {
  maxBytes: number;
  /** THANKS_MAX_SECONDS */
  maxSeconds: number;
  /** THANKS_SEND_DELAY_SECONDS */
  sendDelaySeconds: number;
}

/**
 * The watch page's thank-you part, under the gift: nothing before the gift was sent; the recorder
 * (ids `thanks-…`) and a note form while a reply may be given or replaced; a sentence once it went.
 */
export function thanksSection(
  order: OrderRow,
  state: ThanksState,
  limits: ThanksLimits,
): { body: SafeHtml; form: ThanksFormData | null } | undefined {
  if (state.kind === 'closed') return undefined;
  const sender = order.name;
  if (state.kind === 'sent')
    return {
      body: html`<section class="thanks" aria-labelledby="thanks-heading">
<h2 id="thanks-heading">${W.heading}</h2>
<p id="thanks-state" class="status ok">${W.sent(sender, state.reply.reply)}</p>
</section>`,
      form: null,
    };
  const noEmail = order.email.trim() === '';
  const lead =
    state.kind === 'waiting'
      ? noEmail
        ? W.noSenderEmail(sender)
        : W.waiting(sender, state.reply.reply)
      : W.invite(sender);
  const note = state.kind === 'waiting' && state.reply.reply === 'note' ? (state.reply.note ?? '') : '';
  return {
    body: html`<section class="thanks" aria-labelledby="thanks-heading">
<h2 id="thanks-heading">${W.heading}</h2>
<p id="thanks-state">${lead}</p>
${recorderMarkup({ idPrefix: 'thanks-', maxSeconds: limits.maxSeconds, sendLabel: W.sendVideo })}
<form id="thanks-note" novalidate>
  <label for="thanks-note-text">${W.noteLabel}</label>
  <textarea id="thanks-note-text" name="note" rows="4" maxlength="${THANKS_NOTE_MAX_LENGTH}" aria-describedby="thanks-note-hint">${note}</textarea>
  <p class="muted" id="thanks-note-hint">${W.noteHint(THANKS_NOTE_MAX_LENGTH)}</p>
  <div class="actions"><button type="submit" class="primary" id="thanks-send-note">${W.sendNote}</button></div>
  <p id="thanks-note-status" class="status" role="status" aria-live="polite"></p>
</form>
</section>`,
    form: {
      uploadUrl: `/watch/${order.uuid}/thanks/video`,
      noteUrl: `/watch/${order.uuid}/thanks/note`,
      maxBytes: limits.maxBytes,
      maxSeconds: limits.maxSeconds,
      types: [...VIDEO_CONTENT_TYPES],
      noteMaxLength: THANKS_NOTE_MAX_LENGTH,
      receivedText: noEmail ? W.noSenderEmail(sender) : W.received(sender, Math.ceil(limits.sendDelaySeconds / 60)),
    },
  };
}

/** The sender's page behind `/thanks/{key}`: the reply video or note, with the store's branding. */
export function thanksPage(
  ctx: Context,
  view: { reply: ThanksRow; order: OrderRow; video: VideoRow | null; store: StoreBranding; mediaOrigin?: string },
): void {
  const { reply, order, video, store } = view;
  const base = `/thanks/${reply.key}`;
  sendPage(ctx, 200, {
    locale: 'en',
    title: W.pageTitle(order.recipient_name),
    store,
    body: html`<h1>${W.pageTitle(order.recipient_name)}</h1>
<p>${W.pageIntro(order.recipient_name, order.video_title, store.name)}</p>
${
  reply.reply === 'video' && video
    ? html`<video id="thanks-video" controls playsinline preload="metadata" src="${base}/video" aria-label="${W.videoLabel(order.recipient_name)}"${video.poster_key ? html` poster="${base}/poster"` : ''}></video>`
    : html`<blockquote class="note" id="thanks-note" aria-label="${W.yourNote}">${reply.note ?? ''}</blockquote>`
}`,
    ...(view.mediaOrigin ? { mediaOrigin: view.mediaOrigin } : {}),
  });
}

export function thanksNotFoundPage(ctx: Context): void {
  sendPage(ctx, 404, {
    locale: 'en',
    title: W.notFoundTitle,
    body: html`<h1>${W.notFoundHeading}</h1>
<p>${W.notFoundText}</p>`,
  });
}
