import type { Queue } from 'bullmq';

/**
 * Adds a job with a deterministic id, so a second add while it waits or runs is a no-op. A job
 * with that id that gave up stays in the failed set (bounded retention) and would make the add a
 * no-op too: when the reconciler hands the work over again it must really run, so that one goes.
 */
export async function addRerunnableJob(queue: Queue, name: string, data: unknown, jobId: string): Promise<void> {
  const previous = await queue.getJob(jobId);
  if (previous && (await previous.isFailed())) await previous.remove();
  await queue.add(name, data, { jobId });
}
