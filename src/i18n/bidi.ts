/**
 * The explicit directional formatting characters (embeddings, overrides, isolates: U+202A–202E,
 * U+2066–2069). A name holding one — "Ann\u202E…" — would otherwise reverse the sentence around it
 * ("…, with a gift from Probe Store" read backwards) on the page, in the e-mail and its subject.
 */
const DIRECTIONAL_FORMATTING = /[\u202A-\u202E\u2066-\u2069]/;
const FIRST_STRONG_ISOLATE = '\u2068';
const POP_DIRECTIONAL_ISOLATE = '\u2069';

/**
 * A value put into a sentence, isolated when it holds directional formatting: between FSI and PDI,
 * whatever it opens ends with it (Unicode's bidi algorithm, UAX #9: a PDI closes the embeddings and
 * overrides opened inside its isolate), so it turns only itself. Other values are returned as they
 * are. Pure and dependency-free: the pages' scripts use it through `interpolate` too.
 */
export function isolateDirectionality(value: string): string {
  return DIRECTIONAL_FORMATTING.test(value) ? `${FIRST_STRONG_ISOLATE}${value}${POP_DIRECTIONAL_ISOLATE}` : value;
}
