import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PRIVATE_REDIS_PID_FILE } from '../../src/redis/private-redis.ts';
import { doorstepForFile, type RunningDoorstep } from '../support/processes.ts';
import { createStore } from '../support/story.ts';

/**
 * A Redis that is up but answers nothing (SIGSTOP: as when it swaps, or its machine stalls): the order
 * API still answers, each Redis command giving up after a second (upgrade probe: every /v1 request
 * hung for as long as Redis was frozen). PostgreSQL holds the orders; the rate limit lets requests by.
 */
let dataDir: string;
let base: string;
let env: RunningDoorstep['env'];

doorstepForFile(
  () => ({ name: 'redis-frozen', env: {} }),
  (started) => ({ dataDir, base, env } = started),
);

it('answers the order API while its Redis is frozen, and /readyz says why it is not ready', async () => {
  const store = await createStore(base, env);
  const created = await store.api('POST', '/v1/orders', {
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    recipient_email: 'bob@example.com',
  });
  expect(created.status).toBe(201);
  const pid = Number(fs.readFileSync(path.join(dataDir, 'redis', PRIVATE_REDIS_PID_FILE), 'utf8'));
  process.kill(pid, 'SIGSTOP');
  try {
    const started = Date.now();
    const read = await store.api('GET', `/v1/orders/${created.body.id}`);
    expect(read.status).toBe(200);
    const updated = await store.api('PUT', `/v1/orders/${created.body.id}`, { video_title: 'For Bob' });
    expect(updated.status).toBe(200);
    // Each request waits at most for its few Redis commands' timeouts.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}, 120_000);
