/**
 * A virtual-clock simulation of a fleet being polled. A claimer wakes every minute, takes every package
 * whose poll is due, groups them by carrier and sends FedEx numbers 30 per request, USPS 35 per request
 * and UPS one per request (docs/carriers/NOTES.md). Each polled package sees the carrier's truthful answer at that
 * minute, the policy under test decides its next poll, and the simulation counts requests and measures
 * detection lag = first poll that sees "delivered" − actual delivery.
 */
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { newTrackingState, type PollDecision, type TrackingState } from '../../src/tracking/schedule.ts';
import { OBSERVED_STATUSES, applyObservation, type ObservedStatus } from '../../src/tracking/observation.ts';
import { SLOTS_PER_DAY, deliverySlot, learnHours, type LearnedHours } from '../../src/tracking/delivery-hours.ts';
import { deliveryZone, localDay } from '../../src/tracking/schedule-hours.ts';
import type { Journey } from './journey.ts';
import { seededRandom } from './prng.ts';

const MINUTE = 60_000;
/** `liveDue` of a package taken for this tick's poll: it has no entry in the queue until the poll decides. */
const IN_FLIGHT = -1;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * `context` is what production knows besides the package: its carrier, and that carrier's delivery
 * hours as learned from the deliveries this fleet has seen so far (never a package's hidden truth).
 */
export type Policy = (state: TrackingState, now: Date, context: PolicyContext) => PollDecision;

export interface PolicyContext {
  carrier: CarrierCode;
  hours: LearnedHours;
}

export const CARRIERS: readonly CarrierCode[] = ['ups', 'fedex', 'usps'];
/** Numbers per tracking request (docs/carriers/NOTES.md): UPS 1, FedEx 30, USPS v3r2 35. */
export const BATCH_SIZES: Readonly<Record<CarrierCode, number>> = { ups: 1, fedex: 30, usps: 35 };

export interface SimulationOptions {
  batchSizes?: Readonly<Record<CarrierCode, number>>;
  /** Share of requests that fail with a 5xx/timeout (assumption: 0.5%), failing every number in them. */
  errorRate?: number;
  seed?: number;
  /** How often the claimer wakes. */
  tickMs?: number;
  /**
   * Learn each carrier's delivery hours from the deliveries seen so far (default true), as the poller
   * does in production; false leaves the schedule on the prior (dense from the scan).
   */
  learnDeliveryHours?: boolean;
  /**
   * The fleet's counts before this run starts (from `learnedSlots` of an earlier run): production has
   * its past deliveries; a run without them starts cold, on the priors.
   */
  history?: FleetSlots;
  /** Share of deliveries left before the dense cadence (delivery-hours.ts RARE_EARLY_SHARE); for levers.ts. */
  rareEarlyShare?: number;
  /** The Shopify-fed variant (issue 30 item 2): see ShopifyFeed. */
  shopifyFeed?: ShopifyFeed;
}

/**
 * Every package is a Shopify fulfillment, and Shopify's own carrier feed sends its events
 * (`fulfillment_events/create`) for free, each `minDelayMs`..`maxDelayMs` after the carrier's scan
 * (drawn per event; Shopify's feed keeps the carrier's order). As production reads them: a status or
 * estimate is an observation (src/tracking/observation.ts `applyObservation`, then the policy decides
 * again, as `TrackingPoller.observe` does), and `delivered` delivers the order through the package
 * rules' path, tracking stopping there. Shopify's feed sees only what the carrier scanned: a
 * delivery without an out-for-delivery scan has no out-for-delivery event either.
 */
export interface ShopifyFeed {
  minDelayMs: number;
  maxDelayMs: number;
}

/** Per carrier, deliveries after an out-for-delivery scan and pickup collections in local 15-min slots. */
export interface FleetSlots {
  deliveries: Record<CarrierCode, number[]>;
  pickups: Record<CarrierCode, number[]>;
}

export interface SimulationResult {
  packages: number;
  /** Packages the recipient received (delivered, or collected from a pickup point). */
  delivered: number;
  deliveredByCarrier: Record<CarrierCode, number>;
  /** Detection lag of each delivered package in ms, NaN when the policy never saw the delivery. */
  lagMs: Float64Array;
  /** Unbatched requests: one per package per poll. */
  polls: number;
  pollsByCarrier: Record<CarrierCode, number>;
  /** Requests after batching due packages of a carrier into one request. */
  requestsByCarrier: Record<CarrierCode, number>;
  /** Claims (claimer wake-ups) that found at least one due package of the carrier. */
  claimsByCarrier: Record<CarrierCode, number>;
  peakRequestsPerHour: Record<CarrierCode, number>;
  /** Polls per package, for breakdowns by journey. */
  pollsByPackage: Int32Array;
  /** Polls by the status the schedule acted on (what it knew before the poll). */
  pollsByStatus: Record<string, number>;
  /** Polls by what they were for, judged with the journey's truth (pollPhase): where the calls go. */
  pollsByPhase: Record<PollPhase, number>;
  stops: Record<'delivered' | 'expired' | 'returned', number>;
  /** Packages still scheduled when the simulation ended (a policy that never stops). */
  unfinished: number;
  /** What the fleet had learned by the end (history included). */
  learnedSlots: FleetSlots;
}

export function simulate(
  journeys: readonly Journey[],
  policy: Policy,
  options: SimulationOptions = {},
): SimulationResult {
  const batchSizes = options.batchSizes ?? BATCH_SIZES;
  const errorRate = options.errorRate ?? 0.005;
  const tick = options.tickMs ?? MINUTE;
  const errors = seededRandom((options.seed ?? 1) ^ 0x5eed5eed);

  const n = journeys.length;
  const states: TrackingState[] = [];
  const snapshotIndex = new Int32Array(n).fill(-1);
  const lagMs = new Float64Array(n).fill(Number.NaN);
  const pollsByPackage = new Int32Array(n);
  const result: SimulationResult = {
    packages: n,
    delivered: 0,
    deliveredByCarrier: { ups: 0, fedex: 0, usps: 0 },
    lagMs,
    polls: 0,
    pollsByCarrier: { ups: 0, fedex: 0, usps: 0 },
    requestsByCarrier: { ups: 0, fedex: 0, usps: 0 },
    claimsByCarrier: { ups: 0, fedex: 0, usps: 0 },
    peakRequestsPerHour: { ups: 0, fedex: 0, usps: 0 },
    pollsByPackage,
    pollsByStatus: {},
    pollsByPhase: zeroByPhase(),
    stops: { delivered: 0, expired: 0, returned: 0 },
    unfinished: 0,
    learnedSlots: { deliveries: { ups: [], fedex: [], usps: [] }, pickups: { ups: [], fedex: [], usps: [] } },
  };
  const requestsPerHour: Record<CarrierCode, Map<number, number>> = {
    ups: new Map(),
    fedex: new Map(),
    usps: new Map(),
  };
  // The fleet's hours: every delivery a poll sees after an out-for-delivery scan, and every collection
  // from a pickup point, counts in its slot, in the destination's local time when its zone is known (what
  // the poller records); refreshed hourly.
  const learning = options.learnDeliveryHours ?? true;
  const slots = (from?: Record<CarrierCode, number[]>): Record<CarrierCode, number[]> => ({
    ups: from ? [...from.ups] : new Array<number>(SLOTS_PER_DAY).fill(0),
    fedex: from ? [...from.fedex] : new Array<number>(SLOTS_PER_DAY).fill(0),
    usps: from ? [...from.usps] : new Array<number>(SLOTS_PER_DAY).fill(0),
  });
  const deliverySlots = slots(options.history?.deliveries);
  const pickupSlots = slots(options.history?.pickups);
  const learn = (carrier: CarrierCode): LearnedHours =>
    learnHours(deliverySlots[carrier], pickupSlots[carrier], options.rareEarlyShare);
  const learned: Record<CarrierCode, LearnedHours> = { ups: learn('ups'), fedex: learn('fedex'), usps: learn('usps') };
  let learnedHour = -1;
  const context = (carrier: CarrierCode): PolicyContext => ({ carrier, hours: learned[carrier] });
  const queue = new DueQueue();
  const ceilTick = (at: number): number => Math.ceil(at / tick) * tick;
  // A package's one live entry in `queue`: an observation can move its next poll, leaving the old
  // entry behind, which is skipped when it comes up (NaN: stopped).
  const liveDue = new Float64Array(n).fill(Number.NaN);
  const schedule = (i: number, at: number): void => {
    liveDue[i] = at;
    queue.push(at, i);
  };
  const stop = (i: number, reason: 'delivered' | 'expired' | 'returned'): void => {
    result.stops[reason]++;
    liveDue[i] = Number.NaN;
  };
  // What the carrier last told us (its scan's time), and Shopify's estimate kept apart as the row keeps
  // it: the schedule reads the carrier's estimate, else Shopify's (docs/tracking.md "Free signals").
  const lastEventAt = new Float64Array(n).fill(Number.NaN);
  const observedEstimate = new Float64Array(n).fill(Number.NaN);
  // Whether the carrier's last answer had an estimate: then the state's estimate is the carrier's,
  // which an observation never replaces.
  const carrierGaveEstimate = new Uint8Array(n);
  const feed = options.shopifyFeed ? shopifyEvents(journeys, options.shopifyFeed, options.seed ?? 1) : null;

  let endMs = 0;
  for (let i = 0; i < n; i++) {
    const journey = journeys[i]!;
    if (journey.deliveredAt !== null) {
      result.delivered++;
      result.deliveredByCarrier[journey.carrier]++;
    }
    endMs = Math.max(endMs, journey.startedAt + 120 * DAY);
    const state = newTrackingState(
      new Date(journey.startedAt),
      journey.offsetKnown ? journey.destinationOffsetMinutes : undefined,
    );
    states.push(state);
    // Tracking starts when the number is set: the caller asks the schedule right then.
    const decision = policy(state, new Date(journey.startedAt), context(journey.carrier));
    if (decision.kind === 'poll') schedule(i, ceilTick(Math.max(decision.at.getTime(), journey.startedAt)));
  }

  const due: Record<CarrierCode, number[]> = { ups: [], fedex: [], usps: [] };
  let now = 0;

  const pollOne = (i: number, failed: boolean): void => {
    const journey = journeys[i]!;
    const state = states[i]!;
    const known = state.status ?? 'none';
    result.pollsByStatus[known] = (result.pollsByStatus[known] ?? 0) + 1;
    result.pollsByPhase[pollPhase(state, journey, now)]++;
    result.polls++;
    result.pollsByCarrier[journey.carrier]++;
    pollsByPackage[i]!++;
    state.lastPolledAt = new Date(now);
    if (failed) {
      state.consecutiveErrors++;
    } else {
      let k = snapshotIndex[i]!;
      const snapshots = journey.snapshots;
      while (k + 1 < snapshots.length && snapshots[k + 1]!.at <= now) k++;
      snapshotIndex[i] = k;
      const snapshot = snapshots[k]!;
      state.status = snapshot.status;
      state.lastChangedAt = new Date(snapshot.at);
      lastEventAt[i] = snapshot.at;
      carrierGaveEstimate[i] = snapshot.estimatedDeliveryAt === null ? 0 : 1;
      const estimate =
        snapshot.estimatedDeliveryAt ?? (Number.isNaN(observedEstimate[i]!) ? null : observedEstimate[i]!);
      state.estimatedDeliveryAt = estimate === null ? null : new Date(estimate);
      state.estimatedWindowStartAt = snapshot.windowStartAt === null ? null : new Date(snapshot.windowStartAt);
      state.consecutiveErrors = 0;
      if (snapshot.status === 'delivered' && Number.isNaN(lagMs[i]!) && journey.deliveredAt !== null) {
        lagMs[i] = now - journey.deliveredAt;
        const counts =
          known === 'out_for_delivery' ? deliverySlots : known === 'available_for_pickup' ? pickupSlots : null;
        if (learning && counts && journey.offsetKnown)
          counts[journey.carrier][deliverySlot(journey.deliveredAt, journey.destinationOffsetMinutes)]!++;
      }
    }
    const decision = policy(state, new Date(now), context(journey.carrier));
    if (decision.kind === 'stop') stop(i, decision.reason);
    else schedule(i, ceilTick(Math.max(decision.at.getTime(), now + 1)));
  };
  /** One Shopify event, heard at `now`: what production's webhook path does with it. */
  const hearShopify = (i: number, k: number): void => {
    if (Number.isNaN(liveDue[i]!)) return;
    const journey = journeys[i]!;
    const snapshot = journey.snapshots[k]!;
    if (snapshot.status === 'delivered') {
      if (Number.isNaN(lagMs[i]!) && journey.deliveredAt !== null) lagMs[i] = now - journey.deliveredAt;
      stop(i, 'delivered');
      return;
    }
    const state = states[i]!;
    const observedStatus = (OBSERVED_STATUSES as readonly string[]).includes(snapshot.status)
      ? (snapshot.status as ObservedStatus)
      : null;
    const next = applyObservation(
      state,
      {
        source: 'shopify',
        at: new Date(snapshot.at),
        status: observedStatus,
        estimatedDeliveryAt: snapshot.estimatedDeliveryAt === null ? null : new Date(snapshot.estimatedDeliveryAt),
      },
      new Date(now),
      {
        estimateObserved: state.estimatedDeliveryAt !== null && carrierGaveEstimate[i] === 0,
        lastEventAt: Number.isNaN(lastEventAt[i]!) ? null : new Date(lastEventAt[i]!),
      },
    );
    if (next === state) return;
    if (next.estimatedDeliveryAt !== state.estimatedDeliveryAt && next.estimatedDeliveryAt !== null)
      observedEstimate[i] = next.estimatedDeliveryAt.getTime();
    states[i] = next;
    const decision = policy(next, new Date(now), context(journey.carrier));
    if (decision.kind === 'stop') stop(i, decision.reason);
    else schedule(i, ceilTick(Math.max(decision.at.getTime(), now + 1)));
  };
  while (queue.size > 0) {
    const nextDue = feed && feed.size > 0 ? Math.min(queue.peekDue(), feed.peekDue()) : queue.peekDue();
    now = Math.max(now + tick, ceilTick(nextDue));
    if (now > endMs) {
      result.unfinished = queue.size;
      break;
    }
    if (learning && Math.floor(now / HOUR) !== learnedHour) {
      learnedHour = Math.floor(now / HOUR);
      for (const carrier of CARRIERS) learned[carrier] = learn(carrier);
    }
    while (feed && feed.size > 0 && feed.peekDue() <= now) {
      const event = feed.pop();
      hearShopify(feed.journeyOf(event), feed.snapshotOf(event));
    }
    while (queue.size > 0 && queue.peekDue() <= now) {
      const dueAt = queue.peekDue();
      const i = queue.pop();
      if (dueAt !== liveDue[i]) continue; // moved by an observation, or stopped
      liveDue[i] = IN_FLIGHT; // an entry left behind at the same time is not the live one
      due[journeys[i]!.carrier].push(i);
    }
    for (const carrier of CARRIERS) {
      const list = due[carrier];
      if (list.length === 0) continue;
      const requests = Math.ceil(list.length / batchSizes[carrier]);
      result.requestsByCarrier[carrier] += requests;
      result.claimsByCarrier[carrier]++;
      const hour = Math.floor(now / HOUR);
      const perHour = requestsPerHour[carrier];
      perHour.set(hour, (perHour.get(hour) ?? 0) + requests);
      const batchSize = batchSizes[carrier];
      for (let from = 0; from < list.length; from += batchSize) {
        // A 5xx or timeout fails the whole request, so every package in it retries together.
        const failed = errors.chance(errorRate);
        for (const i of list.slice(from, from + batchSize)) pollOne(i, failed);
      }
      list.length = 0;
    }
  }
  // Stale entries (moved or stopped packages) do not count as unfinished.
  if (result.unfinished > 0) result.unfinished = liveDue.filter((at) => !Number.isNaN(at)).length;
  for (const carrier of CARRIERS)
    result.peakRequestsPerHour[carrier] = Math.max(0, ...requestsPerHour[carrier].values());
  result.learnedSlots = { deliveries: deliverySlots, pickups: pickupSlots };
  return result;
}

/**
 * What a poll was for, from what the schedule knew before it and, for a package in transit on or after
 * its estimated day, whether it was in fact delivered that (local) day: the bench can tell the calls
 * a schedule spends on a package that does not come that day from those on one that comes without an
 * out-for-delivery scan, which production cannot.
 */
export const POLL_PHASES = [
  'first look',
  'retry of a failed look',
  'label not scanned yet',
  'in transit, days before the estimate',
  'in transit, on its delivery day (no scan seen yet)',
  'in transit, on or after the estimate, not delivered that day',
  'in transit, no estimate',
  'out for delivery, with a window',
  'out for delivery, without a window',
  'held for pickup',
  'exception',
] as const;
export type PollPhase = (typeof POLL_PHASES)[number];

export function zeroByPhase(): Record<PollPhase, number> {
  return Object.fromEntries(POLL_PHASES.map((phase) => [phase, 0])) as Record<PollPhase, number>;
}

export function pollPhase(state: TrackingState, journey: Journey, now: number): PollPhase {
  if (state.lastPolledAt === null) return 'first look';
  if (state.consecutiveErrors > 0 || state.status === null) return 'retry of a failed look';
  switch (state.status) {
    case 'pre_transit':
    case 'not_found':
    case 'unknown':
      return 'label not scanned yet';
    case 'out_for_delivery':
      return state.estimatedWindowStartAt ? 'out for delivery, with a window' : 'out for delivery, without a window';
    case 'available_for_pickup':
      return 'held for pickup';
    case 'failure':
    case 'delivered':
    case 'return_to_sender':
      return 'exception';
    case 'in_transit': {
      if (state.estimatedDeliveryAt === null) return 'in transit, no estimate';
      const zone = deliveryZone(state.utcOffsetMinutes);
      const today = localDay(now, zone);
      if (today < localDay(state.estimatedDeliveryAt.getTime(), zone)) return 'in transit, days before the estimate';
      return journey.deliveredAt !== null && localDay(journey.deliveredAt, zone) === today
        ? 'in transit, on its delivery day (no scan seen yet)'
        : 'in transit, on or after the estimate, not delivered that day';
    }
  }
}

/**
 * Shopify's events for every package, as a queue by the time they reach us: each snapshot after the
 * first (the label) is an event, `delay` after its scan, never before the journey's previous event.
 */
function shopifyEvents(journeys: readonly Journey[], feed: ShopifyFeed, seed: number) {
  const rng = seededRandom((seed ^ 0x5409f1ed) >>> 0);
  const journeyOf: number[] = [];
  const snapshotOf: number[] = [];
  const events = new DueQueue();
  journeys.forEach((journey, i) => {
    let previous = -Infinity;
    for (let k = 1; k < journey.snapshots.length; k++) {
      const heardAt = Math.max(previous, journey.snapshots[k]!.at + rng.between(feed.minDelayMs, feed.maxDelayMs));
      previous = heardAt;
      journeyOf.push(i);
      snapshotOf.push(k);
      events.push(heardAt, journeyOf.length - 1);
    }
  });
  return {
    get size() {
      return events.size;
    },
    peekDue: () => events.peekDue(),
    pop: () => events.pop(),
    journeyOf: (event: number) => journeyOf[event]!,
    snapshotOf: (event: number) => snapshotOf[event]!,
  };
}

/** A binary min-heap of (due time, package index). Ties pop in heap order, which is deterministic. */
class DueQueue {
  private dues: number[] = [];
  private ids: number[] = [];

  get size(): number {
    return this.dues.length;
  }

  peekDue(): number {
    return this.dues[0]!;
  }

  push(due: number, id: number): void {
    const dues = this.dues;
    const ids = this.ids;
    let at = dues.length;
    dues.push(due);
    ids.push(id);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (dues[parent]! <= due) break;
      dues[at] = dues[parent]!;
      ids[at] = ids[parent]!;
      at = parent;
    }
    dues[at] = due;
    ids[at] = id;
  }

  pop(): number {
    const dues = this.dues;
    const ids = this.ids;
    const top = ids[0]!;
    const lastDue = dues.pop()!;
    const lastId = ids.pop()!;
    const size = dues.length;
    if (size === 0) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && dues[right]! < dues[left]! ? right : left;
      if (dues[child]! >= lastDue) break;
      dues[at] = dues[child]!;
      ids[at] = ids[child]!;
      at = child;
    }
    dues[at] = lastDue;
    ids[at] = lastId;
    return top;
  }
}
