import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operationsDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startOperationsServer, type OperationsServer } from '../../src/operations/operations-server.ts';
import { OPERATOR_PASSWORD_FILE, resolveOperatorCredentials } from '../../src/operations/operator-credentials.ts';
import { Scrape } from '../support/prometheus.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const OPERATOR_PASSWORD = 'worker-test-password-0123456789';
const operator = `Basic ${Buffer.from(`operator:${OPERATOR_PASSWORD}`).toString('base64')}`;
const dirs: string[] = [];
let app: TestApp;
let server: OperationsServer;

beforeAll(async () => {
  app = await startTestApp({ env: { OPERATOR_PASSWORD } });
  app.services.metrics.setProcess('worker', { processMetrics: true });
  server = await startOperationsServer(operationsDeps(app.services), {
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('silent'),
  });
});
afterAll(async () => {
  await server?.close();
  await app?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

it("the worker's own server answers /healthz, /readyz and /metrics (behind credentials) with a process label", async () => {
  const base = `http://127.0.0.1:${server.port}`;
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  const ready = await fetch(`${base}/readyz`);
  expect(ready.status).toBe(200);
  expect(((await ready.json()) as { status: string }).status).toBe('ready');
  expect((await fetch(`${base}/metrics`)).status).toBe(401);
  const metrics = await fetch(`${base}/metrics`, { headers: { Authorization: operator } });
  expect(metrics.status).toBe(200);
  const scrape = new Scrape(await metrics.text());
  expect(scrape.has('doorstep_queue_jobs', { process: 'worker', queue: 'tracking-ups', state: 'waiting' })).toBe(true);
  expect(scrape.has('doorstep_process_cpu_user_seconds_total', { process: 'worker' })).toBe(true);
  expect((await fetch(`${base}/v1/orders`)).status).toBe(404);
});

it('without operator credentials the endpoints say 503 "not configured" (the default with DATABASE_URL)', async () => {
  const other = await startTestApp({ env: { OPERATOR_PASSWORD: '' } });
  try {
    const response = await other.request('GET', '/metrics', { headers: { Authorization: operator } });
    expect(response.status).toBe(503);
    expect(response.body.error.type).toBe('operator_credentials_not_configured');
    expect((await other.request('GET', '/admin/queues')).status).toBe(503);
  } finally {
    await other.close();
  }
  const config = loadConfig({
    DOORSTEP_ENV: 'production',
    DATABASE_URL: 'postgres://u:p@db.invalid/doorstep',
    CARRIER_SANDBOX: 'on',
    TOKEN_ENCRYPTION_KEY: 'a'.repeat(64),
  });
  expect(resolveOperatorCredentials(config)).toEqual({ credentials: null, generatedFile: null });
});

it('on the embedded defaults a password is generated once, kept in DATA_DIR readable by its owner only', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-operator-'));
  dirs.push(dataDir);
  const config = loadConfig({ DATA_DIR: dataDir });
  const first = resolveOperatorCredentials(config);
  const file = path.join(dataDir, OPERATOR_PASSWORD_FILE);
  expect(first.generatedFile).toBe(file);
  expect(first.credentials!.username).toBe('operator');
  expect(first.credentials!.password.length).toBeGreaterThanOrEqual(32);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(resolveOperatorCredentials(config).credentials).toEqual(first.credentials);
  // A configured password wins and nothing is read.
  expect(resolveOperatorCredentials(loadConfig({ DATA_DIR: dataDir, OPERATOR_PASSWORD })).credentials).toEqual({
    username: 'operator',
    password: OPERATOR_PASSWORD,
  });
});

it('refuses a short OPERATOR_PASSWORD at start', () => {
  expect(() => loadConfig({ OPERATOR_PASSWORD: 'short' })).toThrow(/OPERATOR_PASSWORD: must be at least 16 characters/);
  expect(() => loadConfig({ OPERATOR_USERNAME: 'a:b', OPERATOR_PASSWORD })).toThrow(/OPERATOR_USERNAME/);
});
