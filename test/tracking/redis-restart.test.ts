import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningWorkers } from '../../jobs/start-workers.ts';
import { freePort } from '../support/processes.ts';
import { startRedisServer } from '../support/redis-server.ts';
import { startTestApp, validOrder, type TestApp } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';
import { deliveredOrder, scriptPackage } from './tracking-app.ts';

let app: TestApp;
let workers: RunningWorkers;
let redis: ChildProcess;
let port: number;
const dirs: string[] = [];

beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port, dirs);
  app = await startTestApp({ sandboxPollIntervalMs: 200, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  workers = await startTestWorkers(app.services, { reconcileEveryMs: 300 });
});
afterAll(async () => {
  await workers.close();
  redis.kill('SIGKILL');
  await app.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

it('loses no tracked order when Redis is killed and comes back empty', async () => {
  const store = await app.createAccount();
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: '1ZXX3150YW44070023' });
  // The worst moment: the package is claimed and its poll job sits in the Redis about to die.
  await app.services.database.db
    .updateTable('trackings')
    .set({ lease_token: '00000000-0000-4000-8000-000000000000', lease_until: new Date(Date.now() + 9 * 60_000) })
    .where('order_id', '=', order.id)
    .execute();

  // Once the process has exited the kernel has closed its sockets: every worker connection has lost
  // Redis, and reconnects to the empty one started next on the same port.
  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));
  redis = await startRedisServer(port, dirs);

  await scriptPackage(app, 'ups', '1ZXX3150YW44070023', { status: 'delivered' });
  const delivered = await deliveredOrder(store, order.id, 30_000, 'delivery after the Redis restart');
  expect(delivered.delivered).toBe('1');
}, 60_000);
