import type { DefaultJobOptions } from 'bullmq';
import type { CarrierCode } from '../src/carriers/carrier-code.ts';

/** One queue per concern (DESIGN.md §2); one per carrier so one carrier's backlog never delays another's. */
export const TRACKING_CLAIM_QUEUE = 'tracking-claim';
export const trackingQueueName = (carrier: CarrierCode) => `tracking-${carrier}`;
/** One poll job per claim: the claim's token is its id, so a claim can never be queued twice. */
export const pollJobId = (claimToken: string) => `poll-${claimToken}`;

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
