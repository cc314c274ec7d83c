import { byId, readPageData } from './dom.ts';
import type { WatchPageData } from './page-data.ts';

const { viewedUrl, thanksScript } = readPageData<WatchPageData>();
const video = byId('message', HTMLVideoElement);
const stage = byId('stage', HTMLDivElement);

/**
 * The reveal: the poster and one large play button over the video. Pressing either (or the video's
 * own controls, for a keyboard or a screen reader) starts it where it is, and the stage gives way to
 * the player. Without this script the button is a link to the video itself.
 */
function start(event?: Event): void {
  event?.preventDefault();
  stage.classList.add('started');
  video.controls = true;
  void video.play().catch(() => {
    // Refused (a browser that wants its own gesture): the controls are there to press.
  });
  video.focus();
}
// The player's own controls wait under the reveal (they are the page's only ones without this script).
video.controls = false;
const play = byId('play', HTMLAnchorElement);
play.addEventListener('click', start);
// A link announced as a button answers the space bar as a button does.
play.addEventListener('keydown', (event) => {
  if (event.key === ' ') start(event);
});
stage.querySelector('.poster')?.addEventListener('click', start);
video.addEventListener('play', () => {
  stage.classList.add('started');
  video.controls = true;
});

/**
 * "Sent on …" on the recipient's own calendar: the server wrote the day in UTC, not knowing her zone;
 * her browser knows it (sent at 22:00 UTC on 24 December is Christmas morning in Sydney).
 */
const sentOn = document.getElementById('sent-on-date');
if (sentOn instanceof HTMLTimeElement && sentOn.dateTime) {
  const at = new Date(sentOn.dateTime);
  const locale = sentOn.dataset['dateLocale'];
  if (!Number.isNaN(at.getTime()))
    sentOn.textContent = new Intl.DateTimeFormat(locale, { month: 'long', day: 'numeric' }).format(at);
}

/** Tells us the first time the recipient actually presses play (not a prefetch, not a page view). */
let told = false;
video.addEventListener('play', () => {
  if (told) return;
  told = true;
  // keepalive: the beacon still goes out if the recipient closes the tab right after pressing play.
  fetch(viewedUrl, { method: 'POST', keepalive: true }).catch(() => {
    told = false;
  });
});

/** The share of the video after which she has watched it, though she stops before the very end. */
const WATCHED_SHARE = 0.9;

/**
 * The reply recorder (thanks-reply.ts) is a script of its own, loaded when the reply is invited,
 * under this page's nonce and pinned by its hash like this one.
 */
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';
let recorderLoaded = false;
function loadReplyRecorder(): void {
  if (!thanksScript || recorderLoaded) return;
  recorderLoaded = true;
  const script = document.createElement('script');
  script.src = thanksScript.url;
  script.integrity = thanksScript.integrity;
  script.nonce = nonce;
  document.body.append(script);
}

// The invitation to reply comes after the gift: shown at its end (or nearly), never before.
const afterWatch = document.getElementById('after-watch');
if (afterWatch && !afterWatch.hidden) loadReplyRecorder();
if (afterWatch?.hidden) {
  const reveal = () => {
    if (!afterWatch.hidden) return;
    afterWatch.hidden = false;
    afterWatch.classList.add('reveal-in');
    loadReplyRecorder();
  };
  video.addEventListener('ended', reveal);
  video.addEventListener('timeupdate', () => {
    if (Number.isFinite(video.duration) && video.currentTime >= video.duration * WATCHED_SHARE) reveal();
  });
}
