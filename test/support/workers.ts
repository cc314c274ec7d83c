import { startWorkers, type RunningWorkers, type WorkerOptions } from '../../jobs/start-workers.ts';
import type { Services } from '../../src/app.ts';
import { withDeadline } from '../../src/process/deadline.ts';

/** The real BullMQ workers on the app's Redis, under the app's own queue prefix. */
export async function startTestWorkers(services: Services, options: WorkerOptions = {}): Promise<RunningWorkers> {
  return startWorkers(services, { claimEveryMs: 150, ...options });
}

/**
 * Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. A check that
 * itself never settles (a connect to a process that accepts and never answers) is cut off at the
 * deadline too: the whole wait is bounded, not only the gaps between checks.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await withDeadline(check(), deadline - Date.now(), what);
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
