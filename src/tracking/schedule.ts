/**
 * When to ask the carrier about a package next: a pure function of what the carrier last told us and
 * the clock. The caller (a claimer that polls due packages in carrier batches) stores the decision;
 * nothing here does I/O.
 *
 * The policy: look once soon after tracking starts. While the label is not scanned, look once a
 * morning (09:00 local, when the out-for-delivery scan of a next-day package is already posted). In
 * transit, look at 09:30 and 21:30 every day before the estimated one (early arrivals, announced or
 * not, seen within 12 h). On the estimated day, and on the next delivery day if the carrier let the
 * estimate pass in silence, look at the opening and 09:00 for the out-for-delivery scan, then every
 * 15 min from the hour the fleet's deliveries stop being rare (a delivery without a scan is seen
 * within it).
 * Once out for delivery, look every 15 min — but when the carrier gives a delivery window, only every
 * 2 h until 15 min before it opens. With no estimate, or a day after it has passed, watch the package at
 * 09:30, 11:00 and 21:30: a delivery nobody announced is then seen within 12 h, not a day later.
 * A package held at a pickup point is watched every 15 min in the hours collections happen. Exceptions
 * and long silences back off to a few looks a day, then fewer. Nothing is polled outside 08:00–21:45
 * destination time.
 * A failed look is retried after 5 min, doubling up to 2 h (never slower than the phase's own
 * cadence) — while out for delivery, the first retry comes at the next claim (1 min); a Retry-After is
 * honoured; 30 days without news stops tracking.
 *
 * The schedule is judged on a family of 100 worlds drawn from wide priors (bench/tracking/family.ts,
 * issue 30), not on the few it was tuned on; bench/tracking/levers.ts turns the knobs that remain.
 *
 * Why 15 min and not 10: lag is bounded by the cadence wherever the schedule is dense, so 15 min meets
 * a 15-min p95 target as long as fewer than 5% of deliveries happen outside dense periods; 10 min costs
 * ~30% more calls (bench/tracking/RESULTS.md has both).
 */
import type { TrackingStatus } from '../vocabulary.ts';
import { UNLEARNED_PICKUP_HOURS, type LearnedDeliveryHours, type LearnedPickupHours } from './delivery-hours.ts';
import {
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  atLocal,
  deliveryZone,
  gridFloor,
  intoPollingHours,
  localDay,
  nextGridTick,
  nextLocalTimeAfter,
  US_EASTMOST_OFFSET_MINUTES,
  US_WESTMOST_OFFSET_MINUTES,
  type DeliveryZone,
} from './schedule-hours.ts';

export interface TrackingState {
  /** null = never polled successfully yet. */
  status: TrackingStatus | null;
  /** When tracking began (the tracking number was set). */
  startedAt: Date;
  lastPolledAt: Date | null;
  /** Last time the carrier reported anything new (status, event or estimate). */
  lastChangedAt: Date | null;
  /**
   * The carrier's estimate: the end of its delivery window when it gives one, otherwise the end of the
   * estimated day (carriers/clients/time.ts reads a bare date as 23:59:59 of that day).
   */
  estimatedDeliveryAt: Date | null;
  /**
   * Start of the carrier's delivery window, when it gives one: UPS `deliveryTime.startTime` for types
   * EDW/CDW/IDW, FedEx `estimatedDeliveryTimeWindow.window.begins`, USPS
   * `predictedDeliveryWindowStartTime`. With it the schedule polls densely only inside the window.
   */
  estimatedWindowStartAt?: Date | null;
  /** Carrier 5xx/timeouts in a row. */
  consecutiveErrors: number;
  /** From a 429's Retry-After. */
  rateLimitedUntil: Date | null;
  /** The destination's offset, minutes east of UTC, if known; otherwise the US-wide delivery hours apply. */
  utcOffsetMinutes?: number;
}

/** A package whose tracking starts now: nothing heard from the carrier yet. */
export function newTrackingState(startedAt: Date, utcOffsetMinutes?: number): TrackingState {
  return {
    status: null,
    startedAt,
    lastPolledAt: null,
    lastChangedAt: null,
    estimatedDeliveryAt: null,
    estimatedWindowStartAt: null,
    consecutiveErrors: 0,
    rateLimitedUntil: null,
    ...(utcOffsetMinutes === undefined ? {} : { utcOffsetMinutes }),
  };
}

export type PollDecision = { kind: 'poll'; at: Date } | { kind: 'stop'; reason: 'delivered' | 'expired' | 'returned' };

/** The carrier policy's knobs; CARRIER_POLICY holds the defaults that bench/tracking measures. */
export interface PollPolicy {
  /**
   * The first look happens on this grid rather than at once: it still shows within half an hour whether
   * the carrier knows the number (or that the package is already moving), while new labels of a
   * carrier share FedEx/USPS batches.
   */
  firstLookGridMs: number;
  /**
   * While out for delivery (without a window, or from just before the window opens): a delivery is seen
   * at most this long after it happens.
   */
  deliveryDayIntervalMs: number;
  /**
   * On a day the package is expected (the estimated day, and the next delivery day when the estimate
   * passed in silence), still in transit: a delivery without an out-for-delivery scan is seen within
   * this. All day since issue 30 (no relaxing after late morning): 15 min, the delivery-day cadence,
   * because a delivery without the scan is otherwise late.
   */
  awaitingScanIntervalMs: number;
  /** Dense polling starts this long before the carrier's window opens (windows are estimates). */
  windowLeadMs: number;
  /** Out for delivery before the window opens: catches some early deliveries and moved windows. */
  beforeWindowIntervalMs: number;
  /**
   * In transit with an estimate: looks (morning and evening, DeliveryZone.eveChecks) start this many
   * delivery days (Sunday does not count) before the estimated day; early arrivals come a day early,
   * and a look before that could only reveal a delay, which the later look reveals as well.
   */
  estimateLookaheadDays: number;
  /** Exceptions (weather, address, damage) resolve in days, not minutes. */
  exceptionIntervalMs: number;
  /**
   * After this long without news, wait at least `silenceBackoffFraction` of the silence before the next
   * look: labels that never ship and lost parcels cost ~15 looks over their 30 days. Late enough that a
   * label scanned days after printing still gets its daily look.
   */
  silenceBackoffAfterMs: number;
  silenceBackoffFraction: number;
  /** A failed look (5xx, timeout) is retried after base, 2×base, 4×base … measured from it, capped. */
  errorBackoffBaseMs: number;
  errorBackoffCapMs: number;
  /**
   * The first retry of a failed look in a phase that looks every `deliveryDayIntervalMs` (out for
   * delivery): a delivery just before the failed look waits for the retry, so a 5-min retry makes it
   * up to 20 min late. Later failures in a row back off as usual (a carrier outage is not hammered).
   */
  denseRetryMs: number;
  /**
   * Held at a pickup point, inside the learned pickup hours. (Issue 30 moved the knobs that were only
   * levers of the exchange-rate table out of this interface: the schedule keeps what production uses.)
   */
  pickupDenseIntervalMs: number;
}

export const CARRIER_POLICY: Readonly<PollPolicy> = {
  firstLookGridMs: 30 * MINUTE_MS,
  deliveryDayIntervalMs: 15 * MINUTE_MS,
  windowLeadMs: 15 * MINUTE_MS,
  awaitingScanIntervalMs: 15 * MINUTE_MS,
  beforeWindowIntervalMs: 2 * HOUR_MS,
  estimateLookaheadDays: 1,
  exceptionIntervalMs: 4 * HOUR_MS,
  silenceBackoffAfterMs: 7 * DAY_MS,
  silenceBackoffFraction: 1 / 3,
  errorBackoffBaseMs: 5 * MINUTE_MS,
  errorBackoffCapMs: 2 * HOUR_MS,
  denseRetryMs: MINUTE_MS,
  pickupDenseIntervalMs: 15 * MINUTE_MS,
};

export interface ScheduleOptions {
  /**
   * 'carrier' (default) is the policy above. 'demo' is for the sandbox carrier, whose packages travel
   * in minutes: poll every `demoIntervalMs` around the clock so a person can watch a delivery happen.
   */
  profile?: 'carrier' | 'demo';
  /** Demo cadence; default 5 s. */
  demoIntervalMs?: number;
  /** Overrides of CARRIER_POLICY. */
  policy?: Partial<PollPolicy>;
  /**
   * The carrier's delivery hours as the fleet has seen them (delivery-hours.ts): out for delivery without
   * a window, the dense cadence starts at `denseFromMinute` local instead of at the scan. Without it, it
   * starts at the scan.
   */
  deliveryHours?: Pick<LearnedDeliveryHours, 'denseFromMinute'>;
  /**
   * When the carrier's pickups are collected, as the fleet has seen it (delivery-hours.ts): a package
   * held at a pickup point is polled every 15 min inside these local hours and only at the ≤ 12 h watch
   * looks outside them. Without it (or null: too few seen yet), the hours pickup points keep
   * (UNLEARNED_PICKUP_HOURS).
   */
  pickupHours?: Pick<LearnedPickupHours, 'fromMinute' | 'untilMinute'> | null;
}

/** AfterShip expires a tracker after 30 days with no information (docs/carriers/NOTES.md); so do we. */
export const TRACKING_EXPIRY_DAYS = 30;
const TRACKING_EXPIRY_MS = TRACKING_EXPIRY_DAYS * DAY_MS;

export const DEMO_POLL_INTERVAL_MS = 5_000;

export function nextPoll(state: TrackingState, now: Date, options: ScheduleOptions = {}): PollDecision {
  if (state.status === 'delivered') return { kind: 'stop', reason: 'delivered' };
  if (state.status === 'return_to_sender') return { kind: 'stop', reason: 'returned' };
  const nowMs = now.getTime();
  const expiresAt = (state.lastChangedAt ?? state.startedAt).getTime() + TRACKING_EXPIRY_MS;
  if (nowMs >= expiresAt) return { kind: 'stop', reason: 'expired' };

  const demo = options.profile === 'demo';
  const demoIntervalMs = options.demoIntervalMs ?? DEMO_POLL_INTERVAL_MS;
  const policy: Readonly<PollPolicy> = { ...CARRIER_POLICY, ...options.policy };
  const lastPolledAt = state.lastPolledAt?.getTime() ?? null;
  const zone = deliveryZone(state.utcOffsetMinutes);

  let wanted: number;
  if (lastPolledAt === null) wanted = demo ? nowMs : Math.ceil(nowMs / policy.firstLookGridMs) * policy.firstLookGridMs;
  else if (demo) wanted = lastPolledAt + demoIntervalMs;
  else if (state.status === null)
    wanted = Number.POSITIVE_INFINITY; // only failed looks so far: the retry decides
  else
    wanted = byPhase({
      state,
      status: state.status,
      nowMs,
      lastPolledAt,
      zone,
      policy,
      denseFromMinute: denseFromOnClock(options.deliveryHours?.denseFromMinute, state.utcOffsetMinutes),
      pickupHours: pickupHoursOnClock(options.pickupHours ?? UNLEARNED_PICKUP_HOURS, state.utcOffsetMinutes),
    });

  // A failed look told us nothing, so it is retried sooner than a sparse phase would look (a failed
  // morning check should not wait a day), backing off exponentially while the carrier keeps failing;
  // a phase that polls more often than the backoff (the delivery day, the demo) keeps its cadence,
  // because a missed look there is a late gift message.
  const dense = lastPolledAt !== null && wanted - lastPolledAt <= policy.deliveryDayIntervalMs;
  const retryAt = errorRetryAt(state, policy, dense);
  if (retryAt !== null) wanted = Math.min(wanted, retryAt);
  if (!Number.isFinite(wanted)) wanted = nowMs;

  // The last look is at the expiry (on the hour, so it shares a batch); after it, no news means stop.
  const lastLook = demo ? expiresAt : Math.ceil(expiresAt / HOUR_MS) * HOUR_MS;
  const at = Math.max(Math.min(wanted, lastLook), nowMs, state.rateLimitedUntil?.getTime() ?? 0);
  return { kind: 'poll', at: new Date(demo ? at : intoPollingHours(at, zone)) };
}

interface Context {
  state: TrackingState;
  status: TrackingStatus;
  nowMs: number;
  lastPolledAt: number;
  zone: DeliveryZone;
  policy: Readonly<PollPolicy>;
  denseFromMinute: number | null;
  pickupHours: { fromMinute: number; untilMinute: number };
}

function byPhase(c: Context): number {
  switch (c.status) {
    case 'out_for_delivery':
      return outForDelivery(c);
    case 'in_transit':
      return inTransit(c);
    case 'available_for_pickup':
      return pickupWatch(c, c.pickupHours);
    case 'failure':
      return nextGridTick(afterSilence(c), c.policy.exceptionIntervalMs);
    case 'delivered':
    case 'return_to_sender':
      throw new Error(`nextPoll stops on ${c.status} before choosing a phase`);
    case 'pre_transit':
    case 'not_found':
    case 'unknown':
      // Not scanned yet: the fastest journeys (next-day ground) show their out-for-delivery scan by the
      // 09:00 check, so one look a morning is enough; the silence backoff thins it for old labels.
      // No silence backoff here: a label first scanned weeks after printing may be delivered the next
      // day, and a look only every few days would see that delivery days late (the world family's
      // heavy-tailed first scans); a never-shipped label costs one look a morning until it expires.
      return nextLocalTimeAfter(c.lastPolledAt, c.zone.morningChecks, c.zone);
  }
}

function outForDelivery(c: Context): number {
  const { state, zone, policy, lastPolledAt } = c;
  const today = localDay(c.nowMs, zone);
  const scannedAt = state.lastChangedAt?.getTime() ?? lastPolledAt;
  // Still "out for delivery" from an earlier day: the truck came back without it and the carrier has
  // not rescanned; treat today like an estimated day.
  if (localDay(scannedAt, zone) < today) return nextGridTick(lastPolledAt, policy.deliveryDayIntervalMs);

  const windowStart = state.estimatedWindowStartAt?.getTime() ?? null;
  const windowEnd = state.estimatedDeliveryAt?.getTime() ?? null;
  if (windowStart !== null && windowEnd !== null && windowStart < windowEnd && localDay(windowStart, zone) === today) {
    const denseFrom = gridFloor(windowStart - policy.windowLeadMs, policy.deliveryDayIntervalMs);
    // Before the window: sparse. From just before it: dense, also after it closes (a missed window
    // means the package is late, not that it is not coming today).
    if (lastPolledAt < denseFrom) return Math.min(nextGridTick(lastPolledAt, policy.beforeWindowIntervalMs), denseFrom);
  } else if (c.denseFromMinute !== null) {
    // No window: the fleet's own delivery hours say when this carrier's deliveries stop being rare.
    // Before that a look would almost never find one, so the next look is the cadence's first.
    const denseFrom = gridFloor(atLocal(today, c.denseFromMinute, zone), policy.deliveryDayIntervalMs);
    if (nextGridTick(lastPolledAt, policy.deliveryDayIntervalMs) < denseFrom) return denseFrom;
  }
  return nextGridTick(lastPolledAt, policy.deliveryDayIntervalMs);
}

function inTransit(c: Context): number {
  const { state, zone, policy, lastPolledAt } = c;
  const today = localDay(c.nowMs, zone);
  const estimate = state.estimatedDeliveryAt?.getTime() ?? null;
  const estimatedDay = estimate === null ? null : localDay(estimate, zone);
  // No estimate: it may come any day, announced or not.
  if (estimatedDay === null) return nextLocalTimeAfter(afterSilence(c), watchChecks(c), zone);
  const expectedAgain = nextDeliveryDay(estimatedDay);
  if (today === estimatedDay || today === expectedAgain) return awaitingDelivery(c, today);
  // The next day the package is expected opens with its scan looks, whatever sparse looks come before it
  // (the days before the estimate; the Sunday after a Saturday estimate, whose watch looks, or a long
  // silence's backoff, would otherwise skip Monday's).
  const nextExpectedDay = estimatedDay > today ? estimatedDay : expectedAgain > today ? expectedAgain : null;
  const nextExpectedOpens =
    nextExpectedDay === null ? Number.POSITIVE_INFINITY : atLocal(nextExpectedDay, zone.opensAtMinute, zone);
  // The carrier is late and silent: it may come any day, announced or not.
  if (estimatedDay < today)
    return Math.min(nextLocalTimeAfter(afterSilence(c), watchChecks(c), zone), nextExpectedOpens);
  // Days away: watched from the lookahead day on (early arrivals come a day early, not always with an
  // out-for-delivery scan by the morning look), then the opening of the estimated day. UPS does not
  // deliver on Sundays and USPS/FedEx only in some areas, so a Monday package that comes early comes on
  // Saturday: the lookahead counts Sunday as no day.
  let firstLookDay = estimatedDay - policy.estimateLookaheadDays;
  if (isSunday(firstLookDay)) firstLookDay--;
  firstLookDay = Math.max(today, firstLookDay);
  const check = nextLocalTimeAfter(Math.max(lastPolledAt, atLocal(firstLookDay, 0, zone)), zone.eveChecks, zone);
  // Before the lookahead day too, a look each morning and evening (09:30, 21:30): a package in transit is
  // past its minimum transit time (the first scan is an evening's, the fastest journey delivers the next
  // day), and carriers do deliver days before their estimate without saying so; the pair bounds such a
  // delivery's lag by 12 h (an evening look alone left deliveries before 09:00 or after 21:00 13–18 h
  // late in the world family) instead of letting it wait for the estimate (issue 30 item 4).
  const evening = nextLocalTimeAfter(lastPolledAt, zone.eveChecks, zone);
  return Math.min(check, evening, nextExpectedOpens);
}

/**
 * A day the package is expected and not yet out for delivery: the estimated day, or the next delivery
 * day when the carrier let the estimate pass without a word (issue 30: such packages, delivered the day
 * after without an out-for-delivery scan, waited for the evening watch look — the biggest cause of late
 * deliveries in the world family). Either the out-for-delivery scan comes (posted 05:30–10:00, seen by
 * the opening or 09:00 look, in time for a window that opens early), or the carrier skips the scan and
 * the delivery itself must be seen within 15 min: every 15 min from the hour the fleet's deliveries stop
 * being rare (`denseFromMinute`, as out for delivery), all day. Issue 30: it relaxed to 30 min, then
 * hourly after 11:00; with up to 30% of deliveries lacking the scan those were seen up to an hour late.
 */
function awaitingDelivery(c: Context, today: number): number {
  const { zone, policy, lastPolledAt } = c;
  const next = nextGridTick(lastPolledAt, policy.awaitingScanIntervalMs);
  if (c.denseFromMinute === null) return next;
  const denseFrom = gridFloor(atLocal(today, c.denseFromMinute, zone), policy.awaitingScanIntervalMs);
  if (next >= denseFrom) return next;
  const opening = atLocal(today, zone.opensAtMinute, zone);
  const scanLook = lastPolledAt < opening ? opening : nextLocalTimeAfter(lastPolledAt, zone.morningChecks, zone);
  return Math.min(scanLook, denseFrom);
}

function watchChecks(c: Context): readonly number[] {
  return c.zone.watchChecks;
}

/**
 * The learned start is a local minute. On the unknown-zone clock (HST) it is taken in the first zone to
 * wake (EDT): the earliest it can be anywhere, so an unknown zone is never polled later than a known one.
 */
function denseFromOnClock(minute: number | undefined, utcOffsetMinutes: number | undefined): number | null {
  if (minute === undefined) return null;
  if (utcOffsetMinutes === undefined || !Number.isFinite(utcOffsetMinutes))
    return minute - (US_EASTMOST_OFFSET_MINUTES - US_WESTMOST_OFFSET_MINUTES);
  return minute;
}

/**
 * Held at a pickup point, with the fleet's pickup hours (or, until it has learned them, the hours pickup
 * points keep): every 15 min inside them (a collection is seen within 15 min), the watch looks outside
 * them (a collection at an odd hour within 12 h).
 */
function pickupWatch(c: Context, hours: { fromMinute: number; untilMinute: number }): number {
  const { zone, policy, lastPolledAt } = c;
  const after = afterSilence(c);
  const watch = nextLocalTimeAfter(after, watchChecks(c), zone);
  const day = localDay(after, zone);
  const step = policy.pickupDenseIntervalMs;
  for (const d of [day, day + 1]) {
    const from = gridFloor(atLocal(d, hours.fromMinute, zone), step);
    const until = atLocal(d, hours.untilMinute, zone);
    const dense = Math.max(from, nextGridTick(Math.max(after, lastPolledAt), step));
    if (dense <= until) return Math.min(watch, dense);
  }
  return watch;
}

/** Pickup hours on the unknown-zone clock (HST): from the first zone to open (EDT) to the last (HST). */
function pickupHoursOnClock(
  hours: { fromMinute: number; untilMinute: number },
  utcOffsetMinutes: number | undefined,
): { fromMinute: number; untilMinute: number } {
  if (utcOffsetMinutes === undefined || !Number.isFinite(utcOffsetMinutes))
    return {
      fromMinute: hours.fromMinute - (US_EASTMOST_OFFSET_MINUTES - US_WESTMOST_OFFSET_MINUTES),
      untilMinute: hours.untilMinute,
    };
  return hours;
}

/** The day after `day`, Sunday skipped (the bench's carriers, and most US residential routes, deliver none). */
function nextDeliveryDay(day: number): number {
  return isSunday(day + 1) ? day + 2 : day + 1;
}

/** Local day numbers count from Thursday 1970-01-01. */
function isSunday(day: number): boolean {
  return (((day + 4) % 7) + 7) % 7 === 0;
}

/** The earliest instant of the next look after a long silence (or `lastPolledAt`). */
function afterSilence(c: Context): number {
  const silence = c.nowMs - (c.state.lastChangedAt ?? c.state.startedAt).getTime();
  return silence > c.policy.silenceBackoffAfterMs
    ? c.lastPolledAt + silence * c.policy.silenceBackoffFraction
    : c.lastPolledAt;
}

function errorRetryAt(state: TrackingState, policy: Readonly<PollPolicy>, dense: boolean): number | null {
  if (state.consecutiveErrors <= 0 || state.lastPolledAt === null) return null;
  if (dense && state.consecutiveErrors === 1) return state.lastPolledAt.getTime() + policy.denseRetryMs;
  // The exponent is clamped so a long outage cannot overflow to Infinity before the cap applies.
  const backoff = Math.min(
    policy.errorBackoffBaseMs * 2 ** Math.min(state.consecutiveErrors - 1, 30),
    policy.errorBackoffCapMs,
  );
  return state.lastPolledAt.getTime() + backoff;
}
