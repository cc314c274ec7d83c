import { phrase } from '../i18n/phrases.ts';
import { LOCALES, type Locale } from '../i18n/locale.ts';
import { shortened } from '../i18n/shortened.ts';
import { TEXT_LIMITS } from './request-schemas.ts';

/**
 * The title of an order nobody titled: "A video message from Ann", in the store's language. A long name
 * is shortened inside it so the title keeps to the title limit: a 200-character name gave a 221-character
 * title that the API then refused when a client sent it back (fields probe).
 */
export function defaultTitleIn(language: Locale, senderName: string): string {
  let name = senderName;
  let title = titleNaming(language, name);
  // Shortening by the excess is usually enough; a name whose directional marks are isolated when
  // filled in (bidi.ts) can change length by more than it lost, so check again.
  while (title.length > TEXT_LIMITS.video_title && name.length > 0) {
    name = shortened(name, Math.max(0, name.length - (title.length - TEXT_LIMITS.video_title)));
    title = titleNaming(language, name);
  }
  return title;
}

/**
 * Whether `title` is the default `senderName` gives, in any language we speak: the store may have
 * changed its language since the order was titled, and the title is still nobody's choice (fields
 * probe: "A video message from Jhon" stayed after a French store corrected the name). A title made
 * before defaults were kept to the limit (the whole name in it) counts too.
 */
export function isDefaultTitle(title: string, senderName: string): boolean {
  return LOCALES.some(
    (language) => title === defaultTitleIn(language, senderName) || title === titleNaming(language, senderName),
  );
}

function titleNaming(language: Locale, senderName: string): string {
  return phrase(language, 'order_default_video_title', { sender_name: senderName });
}
