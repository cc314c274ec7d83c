/**
 * The explicit directional formatting characters (embeddings, overrides, isolates: U+202A–202E,
 * U+2066–2069). A name holding one — "Ann\u202E…" — would otherwise reverse the sentence around it
 * ("…, with a gift from Probe Store" read backwards) on the page, in the e-mail and its subject.
 */
const DIRECTIONAL_FORMATTING = /[\u202A-\u202E\u2066-\u2069]/g;
const FIRST_STRONG_ISOLATE = '\u2068';
const POP_DIRECTIONAL_ISOLATE = '\u2069';

/**
 * A value put into a sentence, when it holds directional formatting: without it, between FSI and PDI,
 * so it turns only itself. The characters are removed, not only enclosed: a value opening with its own
 * PDI would close our FSI at once and free an override after it (UAX #9, BD9). Other values are
 * returned as they are. For text in a sentence — `interpolate`, `phraseHtml`, e-mail `render` — not
 * for attribute values (a form's value would gain the characters on every save). Pure and
 * dependency-free: the pages' scripts use it through `interpolate` too.
 */
export function isolateDirectionality(value: string): string {
  const stripped = value.replace(DIRECTIONAL_FORMATTING, '');
  return stripped === value ? value : `${FIRST_STRONG_ISOLATE}${stripped}${POP_DIRECTIONAL_ISOLATE}`;
}
