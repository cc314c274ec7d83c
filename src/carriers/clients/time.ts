/**
 * Carrier timestamps come as wall-clock parts plus (sometimes) a UTC offset, in several spellings:
 * UPS `date: '20210210'`, `time: '071356'`, `gmtTime: '74700'` (unpadded in ups-tracking.openapi.yaml),
 * `gmtOffset: '-05:00'`; USPS `GMTOffset: '-7:00'` (usps-tracking-v3.openapi.yaml); FedEx ISO strings
 * with or without an offset (`dateAndTimes` example '2007-09-27T00:00:00' in fedex-track.openapi.json).
 * These helpers turn them into instants. When the offset is unknown the text is read as UTC: wrong by
 * a few hours at most, and never dependent on the server's own time zone.
 */

export interface DateParts {
  year: number;
  month: number;
  day: number;
}

export interface TimeParts {
  hour: number;
  minute: number;
  second: number;
}

export const END_OF_DAY: TimeParts = { hour: 23, minute: 59, second: 59 };

/** 'YYYYMMDD' or 'YYYY-MM-DD'. */
export function parseDateParts(text: string | null | undefined): DateParts | null {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text?.trim() ?? '');
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return { year, month, day };
}

/** 'HHMMSS' (leading zeros optional), 'HH:MM:SS', 'HH:MM', optionally followed by am/pm ('1:45 pm'). */
export function parseTimeParts(text: string | null | undefined): TimeParts | null {
  const trimmed = text?.trim().toLowerCase() ?? '';
  const meridiem = /\s*([ap])\.?m\.?$/.exec(trimmed);
  const clock = meridiem ? trimmed.slice(0, meridiem.index) : trimmed;
  let hour: number;
  let minute: number;
  let second: number;
  const separated = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(clock);
  if (separated) {
    [hour, minute, second] = [Number(separated[1]), Number(separated[2]), Number(separated[3] ?? 0)];
  } else if (/^\d{1,6}$/.test(clock)) {
    // HHMMSS with leading zeros possibly dropped: UPS's gmtTime example is '74700' for 07:47:00.
    const padded = clock.padStart(6, '0');
    [hour, minute, second] = [Number(padded.slice(0, 2)), Number(padded.slice(2, 4)), Number(padded.slice(4, 6))];
  } else {
    return null;
  }
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem[1] === 'p' ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return null;
  return { hour, minute, second };
}

/** '-05:00', '-7:00', '+0530', 'Z' → minutes east of UTC. */
export function parseUtcOffset(text: string | null | undefined): number | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed === 'Z' || trimmed === 'z') return 0;
  const match = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(trimmed);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  if (minutes > 18 * 60) return null;
  return match[1] === '-' ? -minutes : minutes;
}

/** Wall-clock parts at a UTC offset (minutes east) → the instant; null offset reads the parts as UTC. */
export function instantFromParts(date: DateParts, time: TimeParts, offsetMinutes: number | null): Date {
  const utc = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute, time.second);
  return new Date(utc - (offsetMinutes ?? 0) * 60_000);
}

const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?([zZ]|[+-]\d{1,2}(?::?\d{2})?)?)?$/;

/**
 * An ISO 8601 timestamp from a carrier. Text without an offset is wall-clock time at
 * `fallbackOffsetMinutes` (UTC when that is null too); a bare date means the end of that day, because
 * for a delivery estimate "on the 12th" means "by the end of the 12th".
 */
export function parseCarrierTimestamp(
  text: string | null | undefined,
  fallbackOffsetMinutes: number | null = null,
): Date | null {
  const match = ISO_TIMESTAMP.exec(text?.trim() ?? '');
  if (!match) return null;
  const date = parseDateParts(match[1]);
  if (!date) return null;
  if (match[2] === undefined) return instantFromParts(date, END_OF_DAY, fallbackOffsetMinutes);
  const time = parseTimeParts(match[2]);
  if (!time) return null;
  const offset = match[4] === undefined ? fallbackOffsetMinutes : parseUtcOffset(match[4]);
  const instant = instantFromParts(date, time, offset);
  const fraction = match[3] ? Math.round(Number(match[3]) * 1000) : 0;
  return new Date(instant.getTime() + fraction);
}

/** The latest of some instants, ignoring the missing ones. */
export function latestOf(instants: Iterable<Date | null>): Date | null {
  let latest: Date | null = null;
  for (const instant of instants) {
    if (instant && (!latest || instant.getTime() > latest.getTime())) latest = instant;
  }
  return latest;
}

/** The UTC offset written at the end of an ISO timestamp ('…-06:00' → -360), or null when there is none. */
export function utcOffsetOf(text: string | null | undefined): number | null {
  const match = ISO_TIMESTAMP.exec(text?.trim() ?? '');
  return match?.[4] === undefined ? null : parseUtcOffset(match[4]);
}
