import pg from 'pg';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import { startDoorstep, waitForExit, type DoorstepProcess, type RunningDoorstep } from '../support/processes.ts';
import { createStore, sampleVideo, type StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';

/** What a process test on a private PostgreSQL server works with. */
export interface DoorstepOnPostgres {
  postgres: PostgresServer;
  doorstep: RunningDoorstep;
  /** A store account made with the CLI, as an operator does. */
  store: StoreClient;
  /** A client on the server's database, for reading what the API does not show (send rows, leases). */
  db: pg.Client;
}

/**
 * For the file's tests: a private PostgreSQL server, Doorstep on it (its `env()` over the server's,
 * read once the file's earlier starters ran, e.g. a provider's URL), a store and a client on the
 * database; stopped after them, the client first and the server last. Its own hook timeout: initdb
 * and Doorstep's first start take longer than the suite's default on a loaded machine.
 */
export function doorstepOnPostgresForFile(
  name: string,
  env: () => Record<string, string>,
  use: (started: DoorstepOnPostgres) => void,
): void {
  let postgres: PostgresServer | undefined;
  let doorstep: RunningDoorstep | undefined;
  let db: pg.Client | undefined;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    doorstep = await startDoorstep({ name, env: { ...postgres.doorstepEnv, ...env() } });
    const store = await createStore(doorstep.base, doorstep.env);
    db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    use({ postgres, doorstep, store, db });
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await doorstep?.stop();
    postgres?.destroy();
  });
}

/**
 * What the tests that kill workers run Doorstep with: web only (`WORKERS=off`; each test starts its
 * workers), the suite's Redis under a queue prefix of the file's, the reconciler every second and
 * 5 s for a shutdown (their defaults are minutes), and a metrics port of its own for each worker.
 */
export function webOnlyWithQuickRecovery(name: string): Record<string, string> {
  return {
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `${name}-${process.pid}`,
    RECONCILE_EVERY_MS: '1000',
    SHUTDOWN_TIMEOUT_MS: '5000',
    METRICS_PORT: '0',
    WORKERS: 'off',
  };
}

/** SIGKILLs a worker and waits until it is gone: a crash, with no shutdown of its own. */
export async function sigkill(worker: DoorstepProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  expect(await waitForExit(worker.child, 10_000)).toMatchObject({ signal: 'SIGKILL' });
}

/** An order from Ann to Bob (plus `fields`) with the sample video uploaded and processed by the workers; its id. */
export async function orderWithProcessedVideo(store: StoreClient, fields: Record<string, unknown>): Promise<string> {
  const created = await store.api('POST', '/v1/orders', {
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    ...fields,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await store.api('PUT', `/v1/orders/${id}/video`, sampleVideo(), 'video/webm')).status).toBe(200);
  await eventually(
    async () => ((await store.api('GET', `/v1/orders/${id}`)).body.video_processed === '1' ? true : undefined),
    60_000,
    'the video processed',
  );
  return id;
}

/** Waits (up to 30 s) until the order says its video went out (`sent_at`). */
export async function orderSent(store: StoreClient, id: string): Promise<void> {
  await eventually(
    async () => ((await store.api('GET', `/v1/orders/${id}`)).body.sent_at ? true : undefined),
    30_000,
    'sent_at',
  );
}
