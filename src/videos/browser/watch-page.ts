import { byId, readPageData } from './dom.ts';
import type { WatchPageData } from './page-data.ts';
import { setUpThanksForm } from './thanks-form.ts';
import { interpolate } from '../../i18n/interpolate.ts';

/** Tells us the first time the recipient actually presses play (not a prefetch, not a page view). */
const { viewedUrl, thanks, phrases } = readPageData<WatchPageData>();
const video = byId('message', HTMLVideoElement);
let told = false;
video.addEventListener('play', () => {
  if (told) return;
  told = true;
  // keepalive: the beacon still goes out if the recipient closes the tab right after pressing play.
  fetch(viewedUrl, { method: 'POST', keepalive: true }).catch(() => {
    told = false;
  });
});

// Once the gift was sent, the recipient can answer it (src/thanks/).
if (thanks) setUpThanksForm(thanks, (key, values = {}) => interpolate(phrases[key], values));
