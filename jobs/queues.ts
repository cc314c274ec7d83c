import type { DefaultJobOptions, RateLimiterOptions } from 'bullmq';
import type { CarrierCode } from '../src/carriers/carrier-code.ts';

/** One queue per concern (docs/design.md §2); one per carrier so each carrier's quota is its own limiter. */
export const TRACKING_CLAIM_QUEUE = 'tracking-claim';
export const trackingQueueName = (carrier: CarrierCode) => `tracking-${carrier}`;
/** One poll job per claim: the claim's token is its id, so a claim can never be queued twice. */
export const pollJobId = (claimToken: string) => `poll-${claimToken}`;

/**
 * Carrier API budgets, enforced by BullMQ's global rate limiter across all worker processes.
 * FedEx publishes 1,400 transactions / 10 s per project (docs/carriers/NOTES.md); we take a tenth so other
 * tools sharing the project keep room. UPS publishes no limit; 10/s is well inside what is
 * reported. USPS's default quota is reported as 60/h: batching 35 numbers per call (v3r2) is what
 * makes it usable at all.
 */
export const CARRIER_LIMITS: Record<CarrierCode, RateLimiterOptions> = {
  ups: { max: 10, duration: 1_000 },
  fedex: { max: 140, duration: 10_000 },
  usps: { max: 60, duration: 3_600_000 },
};

/** The sandbox has no quota worth protecting; a person watching wants answers now. */
export const SANDBOX_LIMIT: RateLimiterOptions = { max: 50, duration: 1_000 };

/** How often each carrier's due packages are claimed: every minute for real carriers, seconds in the sandbox. */
export const CLAIM_EVERY_MS = { carrier: 60_000, sandbox: 2_000 };

export const SENDS_QUEUE = 'sends';
/** Due messages are looked for every second: "within seconds" of delivery, at one indexed query a second. */
export const DISPATCH_EVERY_MS = 1_000;

/** Bounded retention so Redis memory stays flat however long the system runs. */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { count: 1_000, age: 3_600 },
  removeOnFail: { count: 5_000, age: 7 * 24 * 3_600 },
};
