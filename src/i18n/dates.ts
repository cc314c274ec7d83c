/**
 * A calendar day in words, in `locale` ("November 26", "26 novembre", "26 de noviembre"): the month
 * spelt out, because an abbreviated one ends with a period in French ("26 nov.") and a sentence then
 * ends with two. `timeZone` is the day's calendar (null: UTC, as `send_on` is stored).
 */
export function dayText(at: Date, locale: string, timeZone: string | null): string {
  return new Intl.DateTimeFormat(locale, { month: 'long', day: 'numeric', timeZone: timeZone ?? 'UTC' }).format(at);
}

/** A zone this runtime can format dates in (Shopify's names are IANA's, which Intl knows). */
export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
