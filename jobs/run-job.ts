import { UnrecoverableError, type Job } from 'bullmq';
import type { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../src/errors.ts';
import type { Logger } from '../src/logger.ts';
import { ToolStoppedError } from '../src/process/run-tool.ts';

/**
 * The one place job errors become retry decisions: a payload that does not parse, or a domain
 * error that another attempt cannot fix (not found, invalid, conflict), fails the job for good;
 * anything else (a carrier or database outage) is thrown so BullMQ retries with backoff, a stop by
 * the worker's shutdown too (logged as what it is, not as a failure).
 */
export function jobProcessor<S extends z.ZodType, R>(
  name: string,
  schema: S,
  logger: Logger,
  perform: (payload: z.output<S>, job: Job) => Promise<R>,
) {
  return async (job: Job): Promise<R> => {
    const parsed = schema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`${name}: invalid payload: ${parsed.error.message}`);
    try {
      return await perform(parsed.data, job);
    } catch (error) {
      // A worker's shutdown stopped the job's ffmpeg: not a failure, and it runs again (BullMQ retries).
      if (error instanceof ToolStoppedError) {
        logger.info(
          { job: name, jobId: job.id, attempt: job.attemptsMade + 1 },
          'job stopped by the shutdown; it runs again',
        );
        throw error;
      }
      const final =
        error instanceof ValidationError || error instanceof NotFoundError || error instanceof ConflictError;
      logger.warn({ job: name, jobId: job.id, attempt: job.attemptsMade + 1, final, err: error }, 'job failed');
      if (final) throw new UnrecoverableError(`${name}: ${(error as Error).message}`);
      throw error;
    }
  };
}
