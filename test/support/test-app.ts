import { nodeHandler } from '../../src/http/node-handler.ts';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { inject } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createHttpApp, createServices, type ServiceOverrides, type Services } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createWebServer } from '../../src/http/web-server.ts';
import { compileMessageTemplates, type MessageTemplates } from '../../src/notifications/messages/message-templates.ts';
import { eventually } from './workers.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { forFile } from './for-file.ts';

/** Compiled once per test file, as a process compiles them once at start. */
let templates: Promise<MessageTemplates> | undefined;

export interface TestAccount {
  id: string;
  appId: string;
  apiKey: string;
  /** Sends a request with this account's Basic credentials. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty or non-JSON (e.g. HTML) body. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  /** The raw body text, for asserting exact field order. */
  text: string;
}

export interface TestApp {
  baseUrl: string;
  /** The app's own PostgreSQL database (test/support/database.ts); undefined on PGlite. */
  databaseUrl: string | undefined;
  services: Services;
  createAccount(name?: string, options?: { revenueShareBps?: number }): Promise<TestAccount>;
  request(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /**
   * Resolves once the app's Redis connection is up: its connection fails fast until then (a request
   * never waits on Redis), so what Redis counts (limits, lockouts) counts from here.
   */
  redisConnected(): Promise<void>;
  close(): Promise<void>;
}

/** The real HTTP app on a real port over a real database — nothing of ours is mocked. */
export async function startTestApp(
  overrides: ServiceOverrides & {
    env?: Record<string, string>;
    /** Plugins on the app's database handle, e.g. one counting the statements a request sends. */
    queryPlugins?: KyselyPlugin[];
    /** A database the test opened itself (e.g. one recording its statements); closed with the app. */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const { queryPlugins = [], database: given, ...serviceOverrides } = overrides;
  const opened = given ?? (await openTestDatabase());
  const database = { ...opened, db: queryPlugins.reduce((db, plugin) => db.withPlugin(plugin), opened.db) };
  // Listen first so the app's own /sandbox (the fake carriers) can be the carriers' base URL.
  const server = createWebServer(createLogger('silent'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Each app gets its own queue prefix on the run's Redis; test workers use the same one.
  const config = loadConfig({
    PUBLIC_URL: 'https://doorstep.test',
    LOG_LEVEL: 'silent',
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `test-${randomUUID()}`,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-test-data-')),
    SHOPIFY_APP_URL: baseUrl,
    ...serviceOverrides.env,
  });
  templates ??= compileMessageTemplates();
  const services = await createServices(
    config,
    createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    database,
    await templates,
    {
      sandboxBaseUrl: `${baseUrl}/sandbox`,
      pushCallbackBaseUrl: baseUrl,
      ...serviceOverrides,
    },
  );
  server.on('request', nodeHandler(createHttpApp(services)));

  const request: TestApp['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJson(text) };
  };

  return {
    baseUrl,
    databaseUrl: database.url,
    services,
    request,
    async createAccount(name = 'Test store', options = {}) {
      const { account, apiKey } = await createAccount(database.db, {
        name,
        revenueShareBps: options.revenueShareBps ?? null,
      });
      const authorization = `Basic ${Buffer.from(`${account.appId}:${apiKey}`).toString('base64')}`;
      return {
        id: account.id,
        appId: account.appId,
        apiKey,
        // A Buffer or string body is sent as is (video uploads); anything else as JSON.
        request: (method, path, body, headers = {}) =>
          Buffer.isBuffer(body) || typeof body === 'string'
            ? request(method, path, { rawBody: body, headers: { Authorization: authorization, ...headers } })
            : request(method, path, { body, headers: { Authorization: authorization, ...headers } }),
      };
    },
    async redisConnected() {
      await eventually(async () => (services.redis.status === 'ready' ? true : undefined), 10_000, 'Redis connected');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      await database.close();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The file's test app: started before its tests and closed after them; `use` receives it. */
export function testAppForFile(use: (app: TestApp) => void, overrides: Parameters<typeof startTestApp>[0] = {}): void {
  forFile(
    () => startTestApp(overrides),
    use,
    (app) => app.close(),
  );
}

export const validOrder = {
  name: 'Ann Sender',
  email: 'ann@example.com',
  recipient_name: 'Bob Recipient',
  recipient_email: 'bob@example.com',
};
