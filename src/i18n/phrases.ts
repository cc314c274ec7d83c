import { keysStartingWith, phraseOf, type PhraseKey, type ScriptPhrases } from './catalogue.ts';
import { interpolate } from './interpolate.ts';
import type { Locale } from './locale.ts';

/** The phrase `key` in `locale`, its placeholders filled from `values` (plain text: escape for HTML). */
export function phrase(locale: Locale, key: PhraseKey, values: Readonly<Record<string, string | number>> = {}): string {
  return interpolate(phraseOf(locale, key), values);
}

/** The record page script's phrases in `locale`, placeholders unfilled: the script fills them. */
export function scriptPhrases(locale: Locale): ScriptPhrases {
  return Object.fromEntries(keysStartingWith('script_').map((key) => [key, phraseOf(locale, key)])) as ScriptPhrases;
}
