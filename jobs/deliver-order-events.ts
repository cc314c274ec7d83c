import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { OrderOutbox } from '../src/orders/outbox.ts';
import { jobProcessor } from './run-job.ts';

/** Bounded so one tick never runs long; the next tick picks up the rest. */
const MAX_EVENTS_PER_RUN = 1_000;

/**
 * Runs every second: hands order events that their changing process did not hand over (a crash, a
 * failing subscriber, a web process without workers) to their subscribers.
 */
export function deliverOrderEventsProcessor(outbox: OrderOutbox, logger: Logger) {
  return jobProcessor('deliver-order-events', z.object({}).passthrough(), logger, async () => {
    let handled = 0;
    while (handled < MAX_EVENTS_PER_RUN) {
      const batch = await outbox.deliverDue(200);
      handled += batch;
      if (batch < 200) break;
    }
    return { handled };
  });
}
