import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { SendDispatcher } from '../src/notifications/dispatcher.ts';
import type { NotWatchedNotes } from '../src/notifications/not-watched.ts';
import { jobProcessor } from './run-job.ts';

/**
 * Messages claimed at a time: small enough that a crash strands few claims (the reconciler returns
 * them), and five rounds of the dispatcher's concurrency, so the claim's last few messages (each
 * claim waits for its slowest) leave most of the pool's connections busy.
 */
const CLAIM_SIZE = 25;

/**
 * How long one run keeps claiming while messages are due. Bounded by time, not by a count, so a
 * backlog drains as fast as the providers take it (a count of 200 capped sending at 200 a second
 * whatever the pool could do), while a run still ends well inside the one-second tick and BullMQ's
 * job lock; the claim that is under way when the time is up is finished, not cut.
 */
export const DISPATCH_RUN_BUDGET_MS = 800;

/** What the job is given besides the dispatcher. */
export interface DispatchRunOptions {
  notWatched?: NotWatchedNotes;
  /**
   * True while webhook intake is pressed (the webhook worker's throttle is yielding): the messages
   * other than recipients' videos wait a little (send-policy.ts OTHERS_HELD_FOR_INTAKE_AT_MOST_MS).
   */
  holdOthers?: () => boolean;
  /** For tests. */
  budgetMs?: number;
}

/**
 * Runs on a short schedule: decides the due three-day "not watched yet" checks (an indexed read of
 * undecided rows, usually none), then sends due messages in claims of 25 — the notes just queued
 * among them — until none is left or the run's time is up.
 */
export function dispatchSendsProcessor(dispatcher: SendDispatcher, logger: Logger, options: DispatchRunOptions = {}) {
  const { notWatched, holdOthers = () => false, budgetMs = DISPATCH_RUN_BUDGET_MS } = options;
  return jobProcessor('dispatch-sends', z.object({}).passthrough(), logger, async () => {
    // A failure here must not hold back the messages that are due: it is logged and tried next tick.
    if (notWatched)
      await notWatched
        .decideDue()
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'could not decide the not-watched notes; they are tried on the next tick'),
        );
    return { sent: await dispatchWhileDue(dispatcher, budgetMs, holdOthers) };
  });
}

/**
 * Claims and delivers until a claim comes back short (nothing more is due) or `budgetMs` has passed.
 * Whether the other kinds are held is asked before each claim: the intake may ease mid-run.
 */
export async function dispatchWhileDue(
  dispatcher: SendDispatcher,
  budgetMs: number,
  holdOthers: () => boolean = () => false,
): Promise<number> {
  const deadline = performance.now() + budgetMs;
  const claimSize = Math.max(CLAIM_SIZE, 5 * dispatcher.concurrency);
  let sent = 0;
  for (;;) {
    const batch = await dispatcher.dispatchDue(claimSize, { holdOthers: holdOthers() });
    sent += batch;
    if (batch < claimSize || performance.now() >= deadline) return sent;
  }
}
