import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/processes.ts';
import { startRedisServer } from '../support/redis-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

let app: TestApp;
let redis: ChildProcess;
let port: number;
const dirs: string[] = [];

beforeAll(async () => {
  port = await freePort();
  redis = await startRedisServer(port, dirs);
  app = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
});
afterAll(async () => {
  redis?.kill('SIGKILL');
  await app?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const readyz = () => app.request('GET', '/readyz');

/** Asks /readyz until it answers `status`: the app notices Redis leaving and coming back in its own time. */
const readyzAnswering = (status: number, timeoutMs: number) =>
  eventually(
    async () => {
      const response = await readyz();
      return response.status === status ? response : undefined;
    },
    timeoutMs,
    `/readyz to answer ${status}`,
  );

it('is ready when PostgreSQL and Redis answer and every migration is applied', async () => {
  const response = await readyz();
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    status: 'ready',
    checks: { postgres: { status: 'ok' }, redis: { status: 'ok' }, migrations: { status: 'ok' } },
  });
});

it('flips to 503 naming redis while Redis is stopped, and back to 200 when it returns', async () => {
  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));

  const down = await readyzAnswering(503, 10_000);
  expect(down.body.status).toBe('not_ready');
  expect(down.body.failing).toEqual(['redis']);
  expect(down.body.checks.redis.status).toBe('failing');
  expect(down.body.checks.postgres).toEqual({ status: 'ok' });
  // The reason names the part, never the URL.
  expect(JSON.stringify(down.body)).not.toContain(String(port));
  // Liveness does not depend on the dependencies: the process is up.
  expect((await app.request('GET', '/healthz')).status).toBe(200);

  redis = await startRedisServer(port, dirs);
  const up = await readyzAnswering(200, 20_000);
  expect(up.body.status).toBe('ready');
}, 40_000);

it('is not ready when a migration this build knows has not been applied', async () => {
  const db = app.services.database.db;
  const last = (await db
    .selectFrom('kysely_migration' as never)
    .select(['name' as never, 'timestamp' as never])
    .orderBy('name' as never, 'desc')
    .limit(1)
    .executeTakeFirstOrThrow()) as { name: string; timestamp: string };
  await db
    .deleteFrom('kysely_migration' as never)
    .where('name' as never, '=', last.name as never)
    .execute();
  try {
    const response = await readyz();
    expect(response.status).toBe(503);
    expect(response.body.failing).toEqual(['migrations']);
    expect(response.body.checks.migrations.reason).toBe(`not applied: ${last.name}`);
  } finally {
    await db
      .insertInto('kysely_migration' as never)
      .values(last as never)
      .execute();
  }
  expect((await readyz()).status).toBe(200);
});

it('names postgres when the database is closed', async () => {
  const other = await startTestApp();
  try {
    await other.services.database.close();
    const response = await other.request('GET', '/readyz');
    expect(response.status).toBe(503);
    expect(response.body.failing).toContain('postgres');
    expect(response.body.checks.postgres.status).toBe('failing');
    expect(response.body.checks.redis).toEqual({ status: 'ok' });
  } finally {
    await other.close().catch(() => {});
  }
});
