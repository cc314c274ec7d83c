import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { SendDispatcher } from '../src/notifications/dispatcher.ts';
import type { NotWatchedNotes } from '../src/notifications/not-watched.ts';
import { jobProcessor } from './run-job.ts';

/** Bounded so one job never runs long; the next scheduled run picks up the rest. */
const MAX_MESSAGES_PER_RUN = 200;

/**
 * Runs on a short schedule: decides the due three-day "not watched yet" checks (an indexed read of
 * undecided rows, usually none), then sends every due message, in claims of 25 — the notes just
 * queued among them.
 */
export function dispatchSendsProcessor(dispatcher: SendDispatcher, logger: Logger, notWatched?: NotWatchedNotes) {
  return jobProcessor('dispatch-sends', z.object({}).passthrough(), logger, async () => {
    // A failure here must not hold back the messages that are due: it is logged and tried next tick.
    if (notWatched)
      await notWatched
        .decideDue()
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'could not decide the not-watched notes; they are tried on the next tick'),
        );
    let sent = 0;
    while (sent < MAX_MESSAGES_PER_RUN) {
      const batch = await dispatcher.dispatchDue(25);
      sent += batch;
      if (batch < 25) break;
    }
    return { sent };
  });
}
