import os from 'node:os';
import { afterAll, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/connection.ts';
import { startMailServer } from '../support/mail-server.ts';
import { startDoorstep, waitForExit, type RunningDoorstep } from '../support/processes.ts';
import { createStore, deliverOneOrder } from '../support/story.ts';
import { eventually } from '../support/workers.ts';

/**
 * compose.yaml's topology, from processes (what CI can run without Docker): a web process
 * (`WORKERS=off`) and a separate worker process (`npm run worker`) on real PostgreSQL and Redis,
 * with a real SMTP server as the inbox. One order goes from delivery to the recipient's e-mail.
 * The worker reaches the web's carrier sandbox through CARRIER_SANDBOX_URL, as in compose.
 *
 * Needs PostgreSQL: the embedded PGlite belongs to one process. `npm run test:postgres` runs it.
 */
const databaseUrl = process.env.DATABASE_URL;
let doorstep: RunningDoorstep | undefined;
let mail: Awaited<ReturnType<typeof startMailServer>> | undefined;

afterAll(async () => {
  await doorstep?.stop();
  await mail?.close();
});

it.skipIf(!databaseUrl)(
  'web and worker as separate processes deliver one order to the recipient’s inbox, then stop cleanly',
  async () => {
    mail = await startMailServer();
    doorstep = await startDoorstep({
      name: 'topology',
      env: {
        DATABASE_URL: databaseUrl!,
        REDIS_URL: inject('redisUrl'),
        QUEUE_PREFIX: `topology-${process.pid}`,
        SMTP_URL: mail.url,
        SHUTDOWN_TIMEOUT_MS: '5000',
        WORKERS: 'off',
      },
    });
    const { proc: web, base, env: shared } = doorstep;
    const worker = await doorstep.startWorker();
    expect(web.output()).not.toMatch(/"msg":"workers started"/);
    // The worker yields the CPU to the web process's intake (WORKER_NICE, default 10).
    expect(os.getPriority(worker.child.pid!)).toBe(Math.max(10, os.getPriority()));
    expect(os.getPriority(web.child.pid!)).toBe(os.getPriority());

    const store = await createStore(base, shared);
    const order = await deliverOneOrder(base, store, 'topology@example.com', '1Z410E7W0392751591');
    const message = await eventually(
      async () => mail!.messages.find((m) => m.to.includes('topology@example.com')),
      30_000,
      'the recipient e-mail',
    );
    expect(message.raw.replace(/=\r?\n/g, '')).toContain(order.playback_url);

    // The web process reports its webhook intake for the worker to yield to (intake-reports.ts),
    // even for a webhook it refuses, and withdraws the report when it stops.
    const reports = `${shared.QUEUE_PREFIX}:shopify-intake-reports`;
    const redis = createRedisConnection(inject('redisUrl'), 'worker');
    try {
      const refused = await fetch(`${base}/shopify/webhooks`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(401);
      expect(
        await eventually(async () => ((await redis.hlen(reports)) === 1 ? true : undefined), 5_000, 'the report'),
      ).toBe(true);
      for (const proc of [worker, web]) {
        proc.child.kill('SIGTERM');
        expect(await waitForExit(proc.child, 15_000)).toMatchObject({ code: 0, signal: null });
      }
      expect(await redis.exists(reports)).toBe(0);
    } finally {
      redis.disconnect();
    }
  },
  240_000,
);
