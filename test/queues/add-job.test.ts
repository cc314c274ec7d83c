import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { expect, inject, it } from 'vitest';
import { addRerunnableJob } from '../../src/queues/queues.ts';
import { createRedisConnection } from '../../src/redis/connection.ts';
import { eventually } from '../support/workers.ts';

it('adds a job once while it waits, and again after it gave up', async () => {
  const prefix = `test-${randomUUID()}`;
  const producer = createRedisConnection(inject('redisUrl'), 'worker');
  const consumer = createRedisConnection(inject('redisUrl'), 'worker');
  const queue = new Queue('rerun', { connection: producer, prefix, defaultJobOptions: { attempts: 1 } });
  let runs = 0;
  const worker = new Worker(
    'rerun',
    async () => {
      runs++;
      if (runs === 1) throw new Error('first run fails');
    },
    { connection: consumer, prefix },
  );
  try {
    await addRerunnableJob(queue, 'work', {}, 'job-1');
    await eventually(
      async () => ((await queue.getJob('job-1'))?.failedReason ? true : undefined),
      10_000,
      'the first run to fail',
    );
    await addRerunnableJob(queue, 'work', {}, 'job-1');
    await eventually(async () => (runs === 2 ? true : undefined), 10_000, 'the second run');
    expect(runs).toBe(2);
  } finally {
    await worker.close();
    await queue.close();
    producer.disconnect();
    consumer.disconnect();
  }
});
