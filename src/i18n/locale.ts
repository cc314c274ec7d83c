import { z } from 'zod';

/**
 * The languages Doorstep speaks, as BCP 47 primary language subtags. Adding one is a catalogue entry
 * (catalogue.ts) and a line here; docs/notifications.md "Adding a language" walks through it.
 */
export const LOCALES = ['en', 'fr', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

const isLocale = (value: string): value is Locale => (LOCALES as readonly string[]).includes(value);

/**
 * The supported language of a language tag: its primary subtag, case-insensitive — `fr-CA` and
 * `FR` are `fr`, Shopify's `pt-BR` or an empty tag are not supported and become `en`.
 */
export function toLocale(tag: string | null | undefined): Locale {
  const primary = primaryLanguage(tag ?? '');
  return isLocale(primary) ? primary : DEFAULT_LOCALE;
}

function primaryLanguage(tag: string): string {
  return tag.trim().split(/[-_]/)[0]!.toLowerCase();
}

/**
 * A locale as stored or sent: any string, read as `toLocale` reads it (unknown → `en`). Lenient on
 * purpose: a shop's primary locale can be any of Shopify's ~100, and a merchant's words go out in the
 * closest one we have rather than not at all.
 */
export const localeSchema = z
  .string()
  .max(35, 'must be a language tag such as en, fr or es-MX')
  .transform((tag) => toLocale(tag));

/**
 * A locale a merchant chooses (account settings, the admin): strict where `localeSchema` is lenient.
 * A region tag is its language (`fr-CA` → `fr`, `es_MX` → `es`), but a language we do not speak is
 * refused naming the ones we do: a merchant who picks German should hear so, not get English.
 */
export const supportedLocaleSchema = z
  .string({ error: `must be one of ${LOCALES.join(', ')}` })
  .trim()
  .refine((tag) => /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/.test(tag) && isLocale(primaryLanguage(tag)), {
    error: `must be one of ${LOCALES.join(', ')} (a region tag such as fr-CA is read as its language)`,
  })
  .transform((tag) => toLocale(tag));

/**
 * The tags of an `Accept-Language` header, most wanted first (RFC 9110 §12.5.4): `q=0` is "not
 * this", ties keep the header's order, `*` is dropped (it names no language).
 */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  const ranges = header.split(',').flatMap((part, index) => {
    const [tag = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    const name = tag.trim();
    if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(name) || !(weight > 0)) return [];
    return [{ name, weight, index }];
  });
  return ranges.sort((a, b) => b.weight - a.weight || a.index - b.index).map((range) => range.name);
}

/**
 * The locale dates are written in on a page in `pageLocale`: the visitor's own variant of the page's
 * language when their browser asks for one (`en-GB` reads "26 November", `fr-CA` its own order), else
 * the page's. A date in another language than its sentence would read wrong ("vers le November 26"),
 * so a visitor whose browser only asks for other languages gets the page's.
 */
export function dateLocale(acceptLanguage: string | undefined, pageLocale: Locale): string {
  const wanted = acceptedLanguages(acceptLanguage).find((tag) => primaryLanguage(tag) === pageLocale);
  if (!wanted) return pageLocale;
  // Intl knows the tag (or its closest parent): keep it; a malformed one throws, and falls back.
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([wanted])[0] ?? pageLocale;
  } catch {
    return pageLocale;
  }
}

/** The page language for a visitor no account speaks for (the not-found page): theirs when we have it. */
export function visitorLocale(acceptLanguage: string | undefined): Locale {
  const spoken = acceptedLanguages(acceptLanguage).map(primaryLanguage).find(isLocale);
  return spoken ?? DEFAULT_LOCALE;
}
