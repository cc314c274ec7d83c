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

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Minutes east of UTC in `timeZone` at `at` (daylight saving time included), or undefined when the
 * platform does not know the zone name (a value stored by a newer version, say).
 */
export function utcOffsetMinutesAt(timeZone: string, at: Date): number | undefined {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    } catch {
      return undefined;
    }
    offsetFormats.set(timeZone, format);
  }
  const name = format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  if (name === 'GMT') return 0;
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * The instant a wall-clock time falls at in `timeZone`: 09:00 on 2027-02-14 in Honolulu is 19:00 UTC.
 * Null when the platform does not know the zone, or `date` is not a day of the calendar. A time a
 * DST change skips or repeats takes the zone's offset at that hour read as UTC (near enough for a
 * send time).
 */
export function instantInZone(date: string, hour: number, timeZone: string): Date | null {
  const asUtc = new Date(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  // Not a day of the calendar ("2026-02-30" would roll over to 2 March).
  if (Number.isNaN(asUtc.getTime()) || asUtc.toISOString().slice(0, 10) !== date) return null;
  const offset = utcOffsetMinutesAt(timeZone, asUtc);
  return offset === undefined ? null : new Date(asUtc.getTime() - offset * 60_000);
}
