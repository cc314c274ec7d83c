import { phrase } from '../i18n/phrases.ts';
import { LOCALES, type Locale } from '../i18n/locale.ts';

/** The title of an order nobody titled: "A video message from Ann", in the store's language. */
export function defaultTitleIn(language: Locale, senderName: string): string {
  return phrase(language, 'order_default_video_title', { sender_name: senderName });
}

/**
 * Whether `title` is the default `senderName` gives, in any language we speak: the store may have
 * changed its language since the order was titled, and the title is still nobody's choice (fields
 * probe: "A video message from Jhon" stayed after a French store corrected the name).
 */
export function isDefaultTitle(title: string, senderName: string): boolean {
  return LOCALES.some((language) => title === defaultTitleIn(language, senderName));
}
