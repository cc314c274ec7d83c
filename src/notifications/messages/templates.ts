import type { StoreBranding } from '../../accounts/store-branding.ts';
import { keysStartingWith, phraseOf } from '../../i18n/catalogue.ts';
import { isolateDirectionality } from '../../i18n/bidi.ts';
import { placeholdersOf } from '../../i18n/interpolate.ts';
import type { Locale } from '../../i18n/locale.ts';
import { phrase } from '../../i18n/phrases.ts';
import { UNNAMED_RECIPIENT } from '../../orders/recipient.ts';
import type { OrderRow } from '../../orders/serializer.ts';
import { playbackUrl, recordUrl } from '../../orders/serializer.ts';
import { SEND_KINDS, type SendKind } from '../../vocabulary.ts';
import { smsSegments, withGsm7Punctuation } from './sms-segments.ts';
import { MessageTemplateError, UnknownPlaceholderError } from './template-errors.ts';

/**
 * What a template may say. The optional ones are absent when unknown, and a template shows them
 * only inside a `{{#name}}…{{/name}}` section (with `{{^name}}…{{/name}}` as the alternative).
 */
export type TemplateValues = {
  store_name: string;
  sender_name: string;
  recipient_name: string;
  /** The recipient's first name (the first word of `recipient_name`), for the notes to the sender. */
  recipient_first_name: string;
  video_title: string;
  playback_url: string;
  record_url: string;
  store_logo_url?: string;
  /**
   * The video's poster frame (`/watch/{uuid}/poster`, captured by the record page), when it has one:
   * the recipient's e-mail shows it instead of the play button.
   */
  poster_url?: string;
  /** The sender's page of the recipient's thank-you reply (`/thanks/{key}`), in the sender's thank-you e-mail. */
  thanks_url?: string;
  /** The reply video's poster frame, when the reply is a video with one. */
  thanks_poster_url?: string;
  /** The reply's note, when the reply is a note (plain text as the recipient wrote it). */
  thanks_note?: string;
  /** What the message may say of the package (occasionOf); not a placeholder. Absent: it has arrived. */
  occasion?: Occasion;
};

/**
 * Whether a message may say the package arrived. A video sent on delivery may ("your package has
 * arrived"); one sent right away or on a chosen date, before its package, must not — a merchant probe
 * read "Your package has arrived" on a gift that had not shipped (the setup guide's test gift among
 * them). Before the package arrives the phrases' `__now`, `__date` or `__gift` variants are said.
 */
export type Occasion = 'arrival' | 'now' | 'date';

export function occasionOf(order: Pick<OrderRow, 'delivered' | 'send_trigger'>): Occasion {
  return order.delivered || order.send_trigger === 'package' ? 'arrival' : order.send_trigger;
}

/** The phrase said for `key` on this occasion: its variant for it, if the catalogue has one. */
function phraseKeyFor(key: MessagePhraseKey, occasion: Occasion): MessagePhraseKey {
  if (occasion === 'arrival') return key;
  for (const variant of [`${key}__${occasion}`, `${key}__gift`])
    if (VARIANT_KEYS.has(variant)) return variant as MessagePhraseKey;
  return key;
}

const ALL_MESSAGE_PHRASE_KEYS = [...keysStartingWith('email_'), ...keysStartingWith('sms_')];
type MessagePhraseKey = (typeof ALL_MESSAGE_PHRASE_KEYS)[number];
/** The catalogue's phrases a message template names: `{{email_…}}`, `{{sms_…}}` (a variant `…__now` is said in its place). */
const MESSAGE_PHRASE_KEYS = ALL_MESSAGE_PHRASE_KEYS.filter((key) => !key.includes('__'));
/** Looked up for every phrase of every message rendered: a set, not a scan of the catalogue's keys. */
const VARIANT_KEYS: ReadonlySet<string> = new Set(ALL_MESSAGE_PHRASE_KEYS.filter((key) => key.includes('__')));

/**
 * What a template is filled with in `locale`: the order's values, every e-mail and SMS phrase of the
 * catalogue filled with them (plain text; `render` escapes it for HTML like any value), and `lang`
 * for `<mjml lang>`. A recipient nobody named is "your recipient" in the message's language.
 */
export function localizedValues(values: TemplateValues, locale: Locale): Record<string, string> {
  const { occasion = 'arrival', ...plain } = values;
  const named =
    plain.recipient_name === UNNAMED_RECIPIENT
      ? {
          ...plain,
          recipient_name: phrase(locale, 'page_unnamed_recipient'),
          recipient_first_name: phrase(locale, 'page_unnamed_recipient'),
        }
      : plain;
  const known = stringsOf(named);
  // A phrase of an optional value (`email_thanks_note`) is left out when the value is: the template
  // names it only inside that value's section, and `render` refuses it anywhere else.
  const phrases = MESSAGE_PHRASE_KEYS.map((key) => [key, phraseKeyFor(key, occasion)] as const)
    .filter(([, said]) => placeholdersOf(phraseOf(locale, said)).every((name) => known[name] !== undefined))
    .map(([key, said]) => [key, phrase(locale, said, known)] as const);
  return { ...known, ...Object.fromEntries(phrases), lang: locale };
}

function stringsOf(values: Omit<TemplateValues, 'occasion'>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export const OPTIONAL_VALUES: ReadonlySet<string> = new Set([
  'store_logo_url',
  'poster_url',
  'thanks_url',
  'thanks_poster_url',
  'thanks_note',
]);

/** The recipient's thank-you reply, as the thanks module hands it to the sender's e-mail. */
export interface ThanksMessage {
  url: string;
  posterUrl: string | null;
  note: string | null;
}

export function thanksValues(thanks: ThanksMessage): Partial<TemplateValues> {
  return {
    thanks_url: thanks.url,
    ...(thanks.posterUrl ? { thanks_poster_url: thanks.posterUrl } : {}),
    ...(thanks.note ? { thanks_note: thanks.note } : {}),
  };
}

const SECTION = /\{\{\s*([#^])\s*([a-z_]+)\s*\}\}([\s\S]*?)\{\{\s*\/\s*\2\s*\}\}/g;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * Fills a template: `{{name}}` becomes the value (through `escape`, for HTML), a `{{#name}}` section
 * stays only when the value is known, a `{{^name}}` section only when it is not. A name without a
 * value throws: braces never reach a recipient. Values are not scanned again, so a customer's
 * `{{record_url}}` stays text.
 */
export function render(
  text: string,
  values: Readonly<Partial<Record<string, string>>>,
  escape: (value: string) => string = (v) => v,
): string {
  const sectioned = text.replace(SECTION, (_whole, kind: string, name: string, inner: string) => {
    if (!OPTIONAL_VALUES.has(name))
      throw new UnknownPlaceholderError(`{{${kind}${name}}} is a section of a value that is not optional`);
    const known = Boolean(values[name]);
    return (kind === '#') === known ? inner : '';
  });
  return sectioned.replace(PLACEHOLDER, (_whole, inner: string) => {
    const name = inner.trim();
    const value = /^[a-z_]+$/.test(name) ? values[name] : undefined;
    if (value === undefined) throw new UnknownPlaceholderError(`{{${name}}} has no value`);
    return escape(isolateDirectionality(value));
  });
}

export function templateValues(
  order: OrderRow,
  publicUrl: string,
  store: StoreBranding,
  hasPoster = false,
): TemplateValues {
  return {
    store_name: store.name,
    sender_name: order.name,
    recipient_name: order.recipient_name,
    recipient_first_name: firstName(order.recipient_name),
    video_title: order.video_title,
    playback_url: playbackUrl(publicUrl, order.uuid),
    record_url: recordUrl(publicUrl, order.uuid),
    ...(store.logoUrl ? { store_logo_url: store.logoUrl } : {}),
    ...(hasPoster ? { poster_url: `${playbackUrl(publicUrl, order.uuid)}/email-poster.jpg` } : {}),
    occasion: occasionOf(order),
  };
}

/** "Grandpa Joe" → "Grandpa", "Bob Recipient" → "Bob": the word a note to the sender can use. */
export function firstName(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] || fullName;
}

/**
 * The template for a message: the kind's own, except the record link for an order still waiting
 * for its recipient, which asks the sender for one.
 */
export type TemplateName = SendKind | 'sender_record_link_needs_recipient';

export const TEMPLATE_NAMES: readonly TemplateName[] = [...SEND_KINDS, 'sender_record_link_needs_recipient'];

/**
 * The messages that go by SMS: the recipient's video (send-policy.ts `channelsFor`) and the
 * not-watched note when the sender's phone is known (not-watched.ts); other notes to the sender are
 * e-mails. Each must have its `.sms.txt`, checked at start.
 */
export const SMS_TEMPLATE_KINDS = ['recipient_video', 'sender_not_watched_note'] as const satisfies readonly SendKind[];

export function emailTemplateFor(
  kind: SendKind,
  order: Pick<OrderRow, 'recipient_email' | 'recipient_phone'>,
): TemplateName {
  if (kind === 'sender_record_link' && order.recipient_email === null && order.recipient_phone === null)
    return 'sender_record_link_needs_recipient';
  return kind;
}

/**
 * An SMS template is one wording per line, the fullest first, each shorter by an optional part
 * (the video's title goes first). The first that fits one segment is sent; when none does (a name
 * in emoji or a non-Latin script makes it UCS-2, 70 units), the one with the fewest segments,
 * rather than a message split in parts mid-sentence.
 */
export function fitSms(template: string, values: Readonly<Partial<Record<string, string>>>): string {
  // What fills it (a name, a title) without typographic marks that would make the SMS UCS-2.
  const plain = Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, value === undefined ? value : withGsm7Punctuation(value)]),
  );
  const wordings = template
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => render(line, plain));
  if (wordings.length === 0) throw new MessageTemplateError('the SMS template has no wording');
  let best = wordings[0]!;
  let bestSegments = smsSegments(best).segments;
  for (const wording of wordings) {
    const segments = smsSegments(wording).segments;
    if (segments === 1) return wording;
    if (segments < bestSegments) [best, bestSegments] = [wording, segments];
  }
  return best;
}
