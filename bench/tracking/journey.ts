/**
 * Synthetic package journeys: what each carrier would answer about a package at any moment, from label
 * creation to delivery (or never). The numbers below are the bench's model of the world: the schedule
 * was tuned against them, not they against the schedule. Where there is no public figure the choice is
 * labelled an assumption, so a reader can disagree with it, change it and rerun.
 */
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import type { TrackingStatus } from '../../src/vocabulary.ts';
import { seededRandom, type Random } from './prng.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** One carrier answer, valid from `at` until the next snapshot. */
export interface CarrierSnapshot {
  at: number;
  status: TrackingStatus;
  /** End of the window, or 23:59:59 local of the estimated day when only a date is given. */
  estimatedDeliveryAt: number | null;
  windowStartAt: number | null;
}

export type JourneyKind =
  | 'delivered'
  | 'pickup' // delivery attempt failed, held at a pickup point, collected later
  | 'never_scanned' // label printed, package never handed over
  | 'exception_delivered' // exception (weather, address), resolved, delivered late
  | 'exception_returned'
  | 'exception_lost';

export interface Journey {
  id: number;
  carrier: CarrierCode;
  destinationOffsetMinutes: number;
  /** Whether the caller knows the destination's offset (passes utcOffsetMinutes to the schedule). */
  offsetKnown: boolean;
  startedAt: number;
  kind: JourneyKind;
  /** Sorted by `at`; the first is at `startedAt`. */
  snapshots: CarrierSnapshot[];
  /** When the recipient got the package (for `pickup`: when they collected it); null if never. */
  deliveredAt: number | null;
  traits: {
    /** The first window given on the delivery day, and where the delivery fell relative to it. */
    window: 'none' | 'inside' | 'early' | 'late';
    outForDeliveryScan: boolean;
    estimate: 'none' | 'on_time' | 'late' | 'early';
  };
}

export interface FleetOptions {
  packages: number;
  seed: number;
  /** First label day (UTC midnight); labels are created over `labelDays` days from there. */
  startMs?: number;
  labelDays?: number;
  /** Sensitivity runs: carriers give no delivery windows / the caller never knows the zone. */
  withoutWindows?: boolean;
  withoutZones?: boolean;
  /** Worlds the schedule was not tuned on (bench/tracking/worlds.ts). Share of packages whose zone is known. */
  zoneKnownShare?: number;
  /** Out-for-delivery scans this many minutes later (negative: earlier) than the model assumes. */
  outForDeliveryShiftMinutes?: number;
  /** Share of packages delivered a day after the estimate, the carrier never admitting it. */
  lateWithoutNotice?: number;
  /** Share of packages (transit ≥ 2 days) delivered a day before the estimate, the carrier never saying so. */
  earlyWithoutNotice?: number;
  // The world family (bench/tracking/family.ts) draws these; absent, the base world's model holds. New
  // draws come from the twist stream, so a world that leaves them unset keeps the base world's packages.
  /** Silent early deliveries come 1..this many delivery days before the estimate (default 1). */
  earlyWithoutNoticeMaxDays?: number;
  /** Per carrier: share of deliveries with an out-for-delivery scan (default WORLD.outForDeliveryScan). */
  outForDeliveryScanShare?: Readonly<Record<CarrierCode, number>>;
  /** Per carrier: share of scanned deliveries with a window (default WORLD.window). */
  windowShare?: Readonly<Record<CarrierCode, number>>;
  /** Per carrier: delivery time of day moved by this many minutes. */
  deliveryMinuteShift?: Readonly<Record<CarrierCode, number>>;
  /** Latest local delivery minute (default 21:00). */
  latestDeliveryMinute?: number;
  /** Share of packages whose first scan comes a heavy-tailed number of extra days late (Pareto α 1.2, ≤ 20). */
  labelToScanTail?: number;
  /** Share of packages whose transit takes a heavy-tailed number of extra delivery days (Pareto α 1.5, ≤ 10). */
  transitTail?: number;
  /** Destination offsets and weights (default WORLD.offsets), e.g. with more Alaska and Hawaii. */
  offsets?: ReadonlyArray<readonly [number, number]>;
  carrierMix?: ReadonlyArray<readonly [CarrierCode, number]>;
}

/** 1, 2, … with P(X ≥ k) = k^-alpha, capped: a heavy tail of extra days. */
function paretoDays(rng: Random, alpha: number, cap: number): number {
  return Math.min(cap, Math.floor((1 - rng.next()) ** (-1 / alpha)));
}

/** Monday 2026-04-06: clear of both DST switches, so offsets below hold for the whole run. */
export const DEFAULT_START_MS = Date.UTC(2026, 3, 6);

/** The model's parameters, printed with the results. */
export const WORLD = {
  // Assumption: a Shopify-app customer base ships with all three; USPS carries most light parcels.
  carrierMix: [
    ['ups', 0.35],
    ['fedex', 0.3],
    ['usps', 0.35],
  ] as const,
  // Roughly the US population by summer offset: ET, CT, MT, Arizona + PT, AK, HI.
  offsets: [
    [-240, 0.47],
    [-300, 0.29],
    [-360, 0.05],
    [-420, 0.18],
    [-480, 0.005],
    [-600, 0.005],
  ] as const,
  // Assumption: the shipping address gives the zone for most orders; the rest use the US-wide hours.
  offsetKnown: 0.9,
  // Assumption: labels printed and never shipped (cancelled orders, reprints).
  neverScanned: 0.03,
  // Label → first scan, in days ("label created days before the first scan"); scans at 17:00–21:30.
  labelToScanDays: [
    [0, 0.55],
    [1, 0.25],
    [2, 0.1],
    [3, 0.05],
    [4, 0.03],
    [5, 0.02],
  ] as const,
  // Delivery days after the first scan (ground 1–5, USPS Ground Advantage 2–5, some longer); no Sundays.
  transitDays: [
    [1, 0.15],
    [2, 0.25],
    [3, 0.25],
    [4, 0.15],
    [5, 0.1],
    [6, 0.06],
    [7, 0.04],
  ] as const,
  // Assumption: estimate shown from the first scan; USPS omits expectedDeliveryDate more often.
  estimateKnown: { ups: 0.97, fedex: 0.97, usps: 0.9 },
  // Assumption: ~85% on the estimated day, in line with the 85–95% on-time rates carriers report:
  // late by 1 day 8%, by 2 days 3%, early by a day 4%.
  estimateLate1: 0.08,
  estimateLate2: 0.03,
  estimateEarly: 0.04,
  // Assumption: exceptions (failure status) among scanned packages, and how they end.
  exception: 0.03,
  exceptionOutcome: [
    ['exception_delivered', 0.6],
    ['exception_returned', 0.25],
    ['exception_lost', 0.15],
  ] as const,
  // Assumption: an out-for-delivery scan exists (USPS skips it more often), posted ~07:15 ± 40 min.
  outForDeliveryScan: { ups: 0.98, fedex: 0.98, usps: 0.95 },
  // Assumption: delivery time of day (minutes), clipped to 08:00–21:00 and ≥ 30 min after the scan.
  deliveryMinute: { ups: [870, 150], fedex: [840, 150], usps: [780, 120] } as Record<CarrierCode, [number, number]>,
  // Delivery windows on the day (UPS EDW/CDW/IDW, FedEx estimatedDeliveryTimeWindow, USPS
  // predictedDeliveryWindow*; all in the OpenAPI files in test/fixtures/carriers). Assumption: share of packages with one,
  // 4 h wide, containing the delivery 88% of the time (8% late, 4% early).
  window: { ups: 0.8, fedex: 0.75, usps: 0.5 },
  windowMinutes: 240,
  windowInside: 0.88,
  windowLate: 0.08,
  // UPS IDW / FedEx's "periodically updated" window: narrowed to 2 h some 1–2.5 h before the stop.
  narrowedWindow: { ups: 0.6, fedex: 0.5, usps: 0 },
  narrowedWindowMinutes: 120,
  narrowedWindowInside: 0.9,
  // Failed attempt → held for pickup, collected 1–4 days later, 10:00–18:00.
  pickup: 0.02,
} as const;

export function generateFleet(options: FleetOptions): Journey[] {
  const start = options.startMs ?? DEFAULT_START_MS;
  const labelDays = options.labelDays ?? 14;
  const fleet: Journey[] = [];
  // One stream per package: a sensitivity run that changes one package's draws leaves the others alone.
  for (let id = 0; id < options.packages; id++) {
    fleet.push(generateJourney(seededRandom(Math.imul(options.seed, 0x9e3779b1) ^ id), id, start, labelDays, options));
  }
  return fleet;
}

interface Change {
  at: number;
  status?: TrackingStatus;
  estimatedDeliveryAt?: number | null;
  windowStartAt?: number | null;
}

function generateJourney(rng: Random, id: number, start: number, labelDays: number, options: FleetOptions): Journey {
  const carrier = rng.pick(options.carrierMix ?? WORLD.carrierMix);
  const offset = rng.pick(options.offsets ?? WORLD.offsets);
  // The worlds' changes draw from a stream of their own, so the base world's packages stay the same.
  const twist = seededRandom((Math.imul(options.seed, 0x85ebca6b) ^ id ^ 0x7f4a7c15) >>> 0);
  const knownDraw = rng.next();
  const offsetKnown = knownDraw < (options.zoneKnownShare ?? WORLD.offsetKnown) && !options.withoutZones;
  const local = (day: number, minute: number): number => day * DAY + minute * MINUTE - offset * MINUTE;
  const dayOf = (at: number): number => Math.floor((at + offset * MINUTE) / DAY);
  const endOfDay = (day: number): number => local(day, 24 * 60) - 1000;
  const isSunday = (day: number): boolean => (day + 4) % 7 === 0; // day 0 (1970-01-01) was a Thursday
  const addDeliveryDays = (day: number, n: number): number => {
    let d = day;
    for (let left = n; left > 0;) if (!isSunday(++d)) left--;
    return d;
  };

  // Merchants print labels in US business hours (13:00–23:00 UTC).
  const startedAt = start + Math.floor(rng.next() * labelDays) * DAY + rng.between(13 * HOUR, 23 * HOUR);
  const changes: Change[] = [];
  const traits: Journey['traits'] = { window: 'none', outForDeliveryScan: false, estimate: 'none' };
  const finish = (kind: JourneyKind, deliveredAt: number | null): Journey => ({
    id,
    carrier,
    destinationOffsetMinutes: offset,
    offsetKnown,
    startedAt,
    kind,
    snapshots: fold(changes),
    deliveredAt,
    traits,
  });

  // USPS answers 404 until the shipping partner's manifest arrives (assumption: half the labels, ≤ 8 h).
  let labelKnownAt = startedAt;
  if (carrier === 'usps' && rng.chance(0.5)) {
    changes.push({ at: startedAt, status: 'not_found' });
    labelKnownAt = startedAt + rng.between(HOUR, 8 * HOUR);
  }
  changes.push({ at: labelKnownAt, status: 'pre_transit', estimatedDeliveryAt: null, windowStartAt: null });
  if (rng.chance(WORLD.neverScanned)) return finish('never_scanned', null);

  let scanDay = dayOf(startedAt) + rng.pick(WORLD.labelToScanDays);
  if (options.labelToScanTail && twist.chance(options.labelToScanTail)) scanDay += paretoDays(twist, 1.2, 20);
  if (isSunday(scanDay)) scanDay++;
  let scanAt = local(scanDay, rng.between(17 * 60, 21.5 * 60));
  if (scanAt < labelKnownAt + 30 * MINUTE) {
    scanDay = isSunday(scanDay + 1) ? scanDay + 2 : scanDay + 1;
    scanAt = local(scanDay, rng.between(17 * 60, 21.5 * 60));
  }
  let transit: number = rng.pick(WORLD.transitDays);
  if (options.transitTail && twist.chance(options.transitTail)) transit += paretoDays(twist, 1.5, 10);
  const plannedDay = addDeliveryDays(scanDay, transit);
  const estimateKnown = rng.chance(WORLD.estimateKnown[carrier]);
  changes.push({ at: scanAt, status: 'in_transit', estimatedDeliveryAt: estimateKnown ? endOfDay(plannedDay) : null });

  let deliveryDay = plannedDay;
  let kind: JourneyKind = 'delivered';
  if (rng.chance(WORLD.exception)) {
    const exceptionDay = scanDay + 1 + Math.floor(rng.next() * Math.max(1, transit - 1));
    const exceptionAt = local(exceptionDay, rng.between(4 * 60, 20 * 60));
    addFacilityScans(changes, rng, scanDay + 1, exceptionDay, local);
    changes.push({ at: exceptionAt, status: 'failure', estimatedDeliveryAt: null, windowStartAt: null });
    kind = rng.pick(WORLD.exceptionOutcome);
    if (kind === 'exception_lost') return finish(kind, null);
    if (kind === 'exception_returned') {
      const returnDay = exceptionDay + Math.round(rng.between(2, 7));
      changes.push({ at: local(returnDay, rng.between(10 * 60, 18 * 60)), status: 'return_to_sender' });
      return finish(kind, null);
    }
    const resolvedDay = exceptionDay + Math.round(rng.between(1, 3));
    // An exception delays: the new date is at least a day after the original one.
    deliveryDay = Math.max(addDeliveryDays(resolvedDay, Math.round(rng.between(1, 2))), addDeliveryDays(plannedDay, 1));
    changes.push({
      at: local(resolvedDay, rng.between(5 * 60, 9 * 60)),
      status: 'in_transit',
      estimatedDeliveryAt: endOfDay(deliveryDay),
    });
    traits.estimate = 'late';
  } else {
    traits.estimate = estimateKnown ? 'on_time' : 'none';
    const surprise = rng.next();
    const silentLate = twist.chance(options.lateWithoutNotice ?? 0);
    const silentEarly = !silentLate && transit >= 2 && twist.chance(options.earlyWithoutNotice ?? 0);
    if (silentLate) {
      deliveryDay = addDeliveryDays(plannedDay, 1);
      if (estimateKnown) traits.estimate = 'late';
    } else if (silentEarly) {
      const maxDays = options.earlyWithoutNoticeMaxDays ?? 1;
      const days = maxDays > 1 ? 1 + Math.floor(twist.next() * maxDays) : 1;
      deliveryDay = plannedDay;
      for (let left = days; left > 0;) if (!isSunday(--deliveryDay)) left--;
      if (deliveryDay <= scanDay) deliveryDay = maxDays > 1 && scanDay + 1 < plannedDay ? scanDay + 1 : plannedDay;
      if (isSunday(deliveryDay)) deliveryDay = plannedDay;
      if (deliveryDay < plannedDay && estimateKnown) traits.estimate = 'early';
    } else if (surprise < WORLD.estimateLate1 + WORLD.estimateLate2) {
      deliveryDay = addDeliveryDays(plannedDay, surprise < WORLD.estimateLate1 ? 1 : 2);
      if (estimateKnown) {
        traits.estimate = 'late';
        // The carrier admits the delay the evening before (50%), during the estimated day (30%), or not
        // at all until the package moves again (20%): the estimate then sits in the past.
        const when = rng.next();
        const revealAt =
          when < 0.5
            ? local(plannedDay - 1, rng.between(19 * 60, 22 * 60))
            : when < 0.8
              ? local(plannedDay, rng.between(10 * 60, 14 * 60))
              : null;
        if (revealAt !== null)
          changes.push({ at: Math.max(revealAt, scanAt + HOUR), estimatedDeliveryAt: endOfDay(deliveryDay) });
      }
    } else if (surprise < WORLD.estimateLate1 + WORLD.estimateLate2 + WORLD.estimateEarly && transit >= 2) {
      deliveryDay = plannedDay - 1;
      if (isSunday(deliveryDay)) deliveryDay--;
      if (deliveryDay <= scanDay) deliveryDay = plannedDay;
      if (estimateKnown && deliveryDay < plannedDay) {
        traits.estimate = 'early';
        // Arrival at the destination facility updates the date the evening before (assumption: 70%).
        const revealAt = local(deliveryDay - 1, rng.between(19 * 60, 22 * 60));
        if (rng.chance(0.7) && revealAt > scanAt)
          changes.push({ at: revealAt, estimatedDeliveryAt: endOfDay(deliveryDay) });
      }
    }
    addFacilityScans(changes, rng, scanDay + 1, deliveryDay, local);
  }

  // The delivery day.
  const [meanMinute, sdMinute] = WORLD.deliveryMinute[carrier];
  const hasScan = rng.chance((options.outForDeliveryScanShare ?? WORLD.outForDeliveryScan)[carrier]);
  const shift = options.outForDeliveryShiftMinutes ?? 0;
  const scanMinute = rng.normal(7.25 * 60 + shift, 40, 5.5 * 60 + shift, 10 * 60 + shift);
  const latest = options.latestDeliveryMinute ?? 21 * 60;
  let deliveryMinute = rng.normal(meanMinute + (options.deliveryMinuteShift?.[carrier] ?? 0), sdMinute, 8 * 60, latest);
  if (hasScan && deliveryMinute < scanMinute + 30)
    deliveryMinute = Math.min(latest, scanMinute + 30 + rng.between(0, 90));
  const attemptAt = local(deliveryDay, deliveryMinute);
  traits.outForDeliveryScan = hasScan;
  if (hasScan) {
    const outAt = local(deliveryDay, scanMinute);
    if (rng.chance((options.windowShare ?? WORLD.window)[carrier]) && !options.withoutWindows) {
      const placed = placeWindow(rng, deliveryMinute, WORLD.windowMinutes, WORLD.windowInside, WORLD.windowLate);
      traits.window = placed.where;
      changes.push({
        at: outAt,
        status: 'out_for_delivery',
        windowStartAt: local(deliveryDay, placed.start),
        estimatedDeliveryAt: local(deliveryDay, placed.end),
      });
      const narrowAt = Math.max(outAt + 30 * MINUTE, attemptAt - rng.between(60, 150) * MINUTE);
      if (rng.chance(WORLD.narrowedWindow[carrier]) && narrowAt < attemptAt - 5 * MINUTE) {
        const narrowed = placeWindow(
          rng,
          deliveryMinute,
          WORLD.narrowedWindowMinutes,
          WORLD.narrowedWindowInside,
          1 - WORLD.narrowedWindowInside,
        );
        changes.push({
          at: narrowAt,
          windowStartAt: local(deliveryDay, narrowed.start),
          estimatedDeliveryAt: local(deliveryDay, narrowed.end),
        });
      }
    } else {
      changes.push({
        at: outAt,
        status: 'out_for_delivery',
        windowStartAt: null,
        estimatedDeliveryAt: endOfDay(deliveryDay),
      });
    }
  }

  let deliveredAt = attemptAt;
  if (kind === 'delivered' && rng.chance(WORLD.pickup)) {
    kind = 'pickup';
    changes.push({ at: attemptAt, status: 'available_for_pickup', estimatedDeliveryAt: null, windowStartAt: null });
    deliveredAt = local(deliveryDay + Math.round(rng.between(1, 4)), rng.between(10 * 60, 18 * 60));
  }
  changes.push({ at: deliveredAt, status: 'delivered' });
  return finish(kind, deliveredAt);
}

/** Sorting-facility scans at night: news that keeps the package "alive" without changing its status. */
function addFacilityScans(
  changes: Change[],
  rng: Random,
  fromDay: number,
  untilDay: number,
  local: (day: number, minute: number) => number,
): void {
  for (let day = fromDay; day < untilDay; day++)
    changes.push({ at: local(day, rng.between(1 * 60, 6 * 60)), status: 'in_transit' });
}

function placeWindow(
  rng: Random,
  deliveryMinute: number,
  width: number,
  inside: number,
  late: number,
): { start: number; end: number; where: 'inside' | 'early' | 'late' } {
  const r = rng.next();
  if (r < inside) {
    const start = Math.min(deliveryMinute, Math.max(8 * 60, deliveryMinute - rng.between(0, width)));
    return { start, end: start + width, where: 'inside' };
  }
  if (r < inside + late) {
    const end = deliveryMinute - rng.between(5, 120);
    return { start: end - width, end, where: 'late' };
  }
  const start = deliveryMinute + rng.between(5, 60);
  return { start, end: start + width, where: 'early' };
}

/** Changes (partial) → full snapshots in time order. */
function fold(changes: Change[]): CarrierSnapshot[] {
  const sorted = [...changes].sort((a, b) => a.at - b.at);
  const snapshots: CarrierSnapshot[] = [];
  let current: CarrierSnapshot | null = null;
  for (const change of sorted) {
    const next: CarrierSnapshot = {
      at: change.at,
      status: change.status ?? current?.status ?? 'pre_transit',
      estimatedDeliveryAt:
        change.estimatedDeliveryAt !== undefined ? change.estimatedDeliveryAt : (current?.estimatedDeliveryAt ?? null),
      windowStartAt: change.windowStartAt !== undefined ? change.windowStartAt : (current?.windowStartAt ?? null),
    };
    // A new status clears a window that belonged to the previous one, unless the change sets its own.
    if (change.status !== undefined && change.status !== 'out_for_delivery' && change.windowStartAt === undefined)
      next.windowStartAt = null;
    snapshots.push(next);
    current = next;
  }
  return snapshots;
}

/** The model in words, for the report; reads WORLD so the two cannot drift apart. */
export function describeWorld(labelDays: number): string[] {
  const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;
  const perCarrier = (r: Record<CarrierCode, number>): string =>
    `UPS ${pct(r.ups)}, FedEx ${pct(r.fedex)}, USPS ${pct(r.usps)}`;
  const hhmm = (m: number): string =>
    `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(Math.round(m % 60)).padStart(2, '0')}`;
  return [
    `Labels printed over ${labelDays} days from 2026-04-06, 13:00–23:00 UTC; carriers ${WORLD.carrierMix.map(([c, w]) => `${c} ${pct(w)}`).join(', ')}; destinations by US population across ET/CT/MT/PT/AK/HI, zone known for ${pct(WORLD.offsetKnown)}.`,
    `${pct(WORLD.neverScanned)} never scanned; first scan 17:00–21:30 local, ${WORLD.labelToScanDays.map(([d, w]) => `${d} d ${pct(w)}`).join(', ')} after the label.`,
    `Transit ${WORLD.transitDays.map(([d, w]) => `${d} d ${pct(w)}`).join(', ')} (no Sunday deliveries); estimate shown from the first scan for ${perCarrier(WORLD.estimateKnown)}.`,
    `Estimates: late by 1 day ${pct(WORLD.estimateLate1)}, by 2 days ${pct(WORLD.estimateLate2)}, early by 1 day ${pct(WORLD.estimateEarly)}; delays admitted the evening before (50%), during the day (30%) or not at all (20%).`,
    `Exceptions ${pct(WORLD.exception)} of scanned packages: ${WORLD.exceptionOutcome.map(([k, w]) => `${k.replace('exception_', '')} ${pct(w)}`).join(', ')}; failed attempts held for pickup ${pct(WORLD.pickup)}, collected 1–4 days later.`,
    `Out-for-delivery scan for ${perCarrier(WORLD.outForDeliveryScan)}, ~07:15 ± 40 min; delivery time ${(['ups', 'fedex', 'usps'] as const).map((c) => `${c} ~${hhmm(WORLD.deliveryMinute[c][0])} ± ${WORLD.deliveryMinute[c][1] / 60} h`).join(', ')}, within 08:00–21:00.`,
    `Delivery windows on the day for ${perCarrier(WORLD.window)}: ${WORLD.windowMinutes / 60} h wide, delivery inside ${pct(WORLD.windowInside)}, after ${pct(WORLD.windowLate)}, before ${pct(1 - WORLD.windowInside - WORLD.windowLate)}; narrowed to ${WORLD.narrowedWindowMinutes / 60} h 1–2.5 h before the stop for ${perCarrier(WORLD.narrowedWindow)} of those.`,
    'Carrier requests fail (5xx/timeout) 0.5% of the time, taking every number in the request with them.',
  ];
}
