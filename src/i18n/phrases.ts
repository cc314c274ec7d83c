import { keysStartingWith, phraseOf, type PhraseKey, type ScriptPhrases } from './catalogue.ts';
import { interpolate } from './interpolate.ts';
import type { Locale } from './locale.ts';

/** The phrase `key` in `locale`, its placeholders filled from `values` (plain text: escape for HTML). */
export function phrase(locale: Locale, key: PhraseKey, values: Readonly<Record<string, string | number>> = {}): string {
  return interpolate(phraseTemplate(locale, key, values), values);
}

/**
 * The phrase `key` in `locale` with its placeholders still to fill, its words already fitted to the
 * `values` that will fill them (French elision): for a caller that fills them itself, as HTML.
 */
export function phraseTemplate(
  locale: Locale,
  key: PhraseKey,
  values: Readonly<Record<string, string | number>>,
): string {
  const text = phraseOf(locale, key);
  return locale === 'fr' ? elided(text, values) : text;
}

/**
 * French elides "de" before a vowel: "un message vidéo d’Élodie", not "de Élodie" (gift pages probe).
 * Only before a name filled in (the catalogue's own words are written elided); an initial "h" is left
 * alone, as French leaves it before an aspirated one ("de Hugo" is also said).
 */
export function elided(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\b([Dd])e \{([a-z_]+)\}/g, (whole, d: string, name: string) =>
    /^[aeiouyàâäéèêëîïôöùûüœæ]/i.test(String(values[name] ?? '').trim()) ? `${d}’{${name}}` : whole,
  );
}

/** The record page script's phrases in `locale`, placeholders unfilled: the script fills them. */
export function scriptPhrases(locale: Locale): ScriptPhrases {
  return Object.fromEntries(keysStartingWith('script_').map((key) => [key, phraseOf(locale, key)])) as ScriptPhrases;
}
