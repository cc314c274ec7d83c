/**
 * Delivery hours and local days for the polling schedule (schedule.ts). Everything here is pure
 * arithmetic on epoch milliseconds; no time-zone database is needed because the schedule only knows a
 * destination's UTC offset (or nothing at all).
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Residential deliveries happen 08:00–21:30 local: UPS and FedEx Home Delivery deliver until 20:00–21:00
 * in peak season and later on a bad day, USPS carriers rarely before 08:00. Outside these hours a poll
 * cannot reveal a delivery. (Issue 30: with polls ending at 21:10, a delivery at 21:05–21:30 waited for
 * the next morning, 11 h; in worlds delivering that late it was most of the p95.)
 */
export const DELIVERY_OPENS_AT_MINUTE = 8 * 60;
export const DELIVERY_CLOSES_AT_MINUTE = 21 * 60 + 30;

/**
 * Polling continues one out-for-delivery interval (15 min) past the last delivery, so a package dropped
 * at 21:29 is still announced that evening (at the 21:45 look) rather than at 08:00 the next day.
 */
const POLLING_GRACE_MINUTES = 15;

/** The out-for-delivery scan is posted by 09:00 local for most packages (driver loads at 06:00–08:30). */
const MORNING_CHECK_MINUTE = 9 * 60;

/** On watched days, a look at 11:00 local catches out-for-delivery scans posted after the morning look. */
const LATE_MORNING_MINUTE = 11 * 60;

/**
 * On a day a package may arrive without the schedule watching densely (the days before its estimate,
 * the days from the second after a passed estimate, or any day when there is none), a last look once the day's deliveries are
 * done (on the half hour, so packages of a zone share the claim and FedEx/USPS batches fill), and early
 * enough that a failed look is retried before polls end at 21:45 (a retry pushed to the next morning
 * left a delivery ~20 h unseen). With the watch morning look 12 h before it, an unannounced delivery (no
 * out-for-delivery scan, or one posted after the morning look) is seen within 12 h, not a day later.
 */
const EVENING_CHECK_MINUTE = 21 * 60 + 30;
/**
 * The morning look of a watched day: 12 h before the evening look, so no delivery between them waits
 * longer. Later than the 09:00 scan look, which also helps: in worlds whose out-for-delivery scans come
 * up to 2 h late (issue 30's family), a package delivered early without notice shows its scan by 09:30
 * more often than by 09:00 and is watched densely from then, instead of waiting for the evening look.
 */
const WATCH_MORNING_CHECK_MINUTE = EVENING_CHECK_MINUTE - 12 * 60;
/** On the unknown-zone clock (HST), a look between the late morning and the evening. */
const UNKNOWN_ZONE_MIDDAY_CHECK_MINUTE = 14 * 60 + 30;

/**
 * When the destination's offset is unknown, polls follow the union of the 50 states' delivery hours:
 * it opens at 08:00 in the first zone to wake (EDT, UTC−4) and closes at 21:45 in the last (HST, UTC−10).
 * Puerto Rico (UTC−4) falls inside; in winter (EST) the union opens an hour early, which costs little.
 */
export const US_EASTMOST_OFFSET_MINUTES = -240;
export const US_WESTMOST_OFFSET_MINUTES = -600;
/** Morning checks for an unknown zone aim at mainland mornings, east (EDT) and west (PDT). */
const US_MAINLAND_WESTMOST_OFFSET_MINUTES = -420;

/**
 * A destination's hours, expressed on one "local" clock. For a known zone that clock is the zone's; for
 * an unknown zone it is HST (the westmost US offset): every US zone's "end of day" (the carriers' date-
 * only estimates, see carriers/clients/time.ts) then falls on the same HST date, and HST midnight
 * (10:00 UTC) lies in the quiet gap when no US zone is in delivery hours, so days never split a
 * delivery day.
 */
export interface DeliveryZone {
  /** Minutes east of UTC of the clock below. */
  readonly clockOffsetMinutes: number;
  /** Polls may happen between these minutes of the clock's day, inclusive. */
  readonly opensAtMinute: number;
  readonly closesAtMinute: number;
  /** Minutes of the day at which sparse phases look for a morning out-for-delivery scan. */
  readonly morningChecks: readonly number[];
  /**
   * Looks on a day a package may be delivered unannounced; consecutive looks are at most 12 h apart
   * across the delivery hours, so no delivery waits longer than that to be seen.
   */
  readonly watchChecks: readonly number[];
  /**
   * Looks on the day before the estimated day (early arrivals); cheaper than `watchChecks` because the
   * estimated day opens with a look, so the evening look may be early enough to skip the late morning.
   */
  readonly eveChecks: readonly number[];
}

/** On the unknown-zone clock (HST), a wall-clock minute in a zone `offset` minutes east of UTC. */
function onWestmostClock(minute: number, offset: number): number {
  return minute - (offset - US_WESTMOST_OFFSET_MINUTES);
}

const UNKNOWN_ZONE: DeliveryZone = {
  clockOffsetMinutes: US_WESTMOST_OFFSET_MINUTES,
  opensAtMinute: onWestmostClock(DELIVERY_OPENS_AT_MINUTE, US_EASTMOST_OFFSET_MINUTES),
  closesAtMinute: DELIVERY_CLOSES_AT_MINUTE + POLLING_GRACE_MINUTES,
  morningChecks: [
    onWestmostClock(MORNING_CHECK_MINUTE, US_EASTMOST_OFFSET_MINUTES),
    onWestmostClock(MORNING_CHECK_MINUTE, US_MAINLAND_WESTMOST_OFFSET_MINUTES),
  ],
  // The union of delivery hours runs from 08:00 EDT (02:00 HST) to 21:30 HST, 19.5 h: the mainland
  // mornings, the late morning, a midday look and the evening keep every gap under 12 h.
  watchChecks: [
    onWestmostClock(MORNING_CHECK_MINUTE, US_EASTMOST_OFFSET_MINUTES),
    onWestmostClock(MORNING_CHECK_MINUTE, US_MAINLAND_WESTMOST_OFFSET_MINUTES),
    onWestmostClock(LATE_MORNING_MINUTE, US_MAINLAND_WESTMOST_OFFSET_MINUTES),
    UNKNOWN_ZONE_MIDDAY_CHECK_MINUTE,
    EVENING_CHECK_MINUTE,
  ],
  eveChecks: [
    onWestmostClock(MORNING_CHECK_MINUTE, US_EASTMOST_OFFSET_MINUTES),
    onWestmostClock(MORNING_CHECK_MINUTE, US_MAINLAND_WESTMOST_OFFSET_MINUTES),
    UNKNOWN_ZONE_MIDDAY_CHECK_MINUTE,
    EVENING_CHECK_MINUTE,
  ],
};

export function deliveryZone(utcOffsetMinutes: number | undefined): DeliveryZone {
  if (utcOffsetMinutes === undefined || !Number.isFinite(utcOffsetMinutes)) return UNKNOWN_ZONE;
  return {
    clockOffsetMinutes: utcOffsetMinutes,
    opensAtMinute: DELIVERY_OPENS_AT_MINUTE,
    closesAtMinute: DELIVERY_CLOSES_AT_MINUTE + POLLING_GRACE_MINUTES,
    morningChecks: [MORNING_CHECK_MINUTE],
    watchChecks: [WATCH_MORNING_CHECK_MINUTE, LATE_MORNING_MINUTE, EVENING_CHECK_MINUTE],
    eveChecks: [WATCH_MORNING_CHECK_MINUTE, EVENING_CHECK_MINUTE],
  };
}

/** Days since the epoch on the zone's clock. */
export function localDay(atMs: number, zone: DeliveryZone): number {
  return Math.floor((atMs + zone.clockOffsetMinutes * MINUTE_MS) / DAY_MS);
}

/** Minute of the day (0–1439, fractional) on the zone's clock. */
export function localMinute(atMs: number, zone: DeliveryZone): number {
  const local = atMs + zone.clockOffsetMinutes * MINUTE_MS;
  return (local - Math.floor(local / DAY_MS) * DAY_MS) / MINUTE_MS;
}

/** The instant of `minute` on local day `day`. */
export function atLocal(day: number, minute: number, zone: DeliveryZone): number {
  return day * DAY_MS + minute * MINUTE_MS - zone.clockOffsetMinutes * MINUTE_MS;
}

export function isPollingHour(atMs: number, zone: DeliveryZone): boolean {
  const minute = localMinute(atMs, zone);
  return minute >= zone.opensAtMinute && minute <= zone.closesAtMinute;
}

/** `atMs` if polls are allowed then, otherwise the next opening. */
export function intoPollingHours(atMs: number, zone: DeliveryZone): number {
  const minute = localMinute(atMs, zone);
  const day = localDay(atMs, zone);
  if (minute < zone.opensAtMinute) return atLocal(day, zone.opensAtMinute, zone);
  if (minute > zone.closesAtMinute) return atLocal(day + 1, zone.opensAtMinute, zone);
  return atMs;
}

/** The first instant strictly after `afterMs` that falls on one of `minutes` (minutes of the local day). */
export function nextLocalTimeAfter(afterMs: number, minutes: readonly number[], zone: DeliveryZone): number {
  const day = localDay(afterMs, zone);
  let best = Number.POSITIVE_INFINITY;
  for (const offsetDays of [0, 1]) {
    for (const minute of minutes) {
      const at = atLocal(day + offsetDays, minute, zone);
      if (at > afterMs && at < best) best = at;
    }
    if (best !== Number.POSITIVE_INFINITY) return best;
  }
  throw new Error('nextLocalTimeAfter needs at least one minute of the day');
}

/**
 * The first multiple of `stepMs` (on the UTC epoch grid) strictly after `afterMs`. Packages on the same
 * cadence land on the same instants, so a claimer finds them due together and FedEx (30) and USPS (35)
 * batches fill; spacing never exceeds `stepMs`, so the lag bound of a cadence holds.
 */
export function nextGridTick(afterMs: number, stepMs: number): number {
  return Math.floor(afterMs / stepMs) * stepMs + stepMs;
}

/** The last multiple of `stepMs` at or before `atMs`. */
export function gridFloor(atMs: number, stepMs: number): number {
  return Math.floor(atMs / stepMs) * stepMs;
}
