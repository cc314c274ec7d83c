import path from 'node:path';
import { adminCommands } from '../../src/admin/commands.ts';
import { openPostgres } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startChild, type Child } from './children.ts';

/**
 * The service as `npm run bench` and its tools run it: `bin/start.ts` in its own process, workers on,
 * carrier sandbox on, quiet logs, no per-account rate limit (the bench is one client sending
 * thousands of requests a second; the limit would be the figure) and a UPS budget no scenario reaches
 * (every PUT of a number must really ask the sandbox: past its default 50/s the service answers from
 * the format check alone, and the scenario would measure a skipped call). `env` adds or overrides.
 */
export async function startBenchService(options: {
  port: number;
  /** The database's variables (`BenchPostgres.doorstepEnv`, and `DATABASE_URL` for another database). */
  databaseEnv: Record<string, string>;
  redisUrl: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<{ base: string; child: Child }> {
  const base = `http://127.0.0.1:${options.port}`;
  const child = await startChild(
    'bin/start.ts',
    [],
    {
      PORT: String(options.port),
      PUBLIC_URL: base,
      ...options.databaseEnv,
      REDIS_URL: options.redisUrl,
      DATA_DIR: path.join(options.dataDir, 'service'),
      CARRIER_SANDBOX: 'on',
      WORKERS: 'on',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      UPS_QUOTA: '100000/1s',
      ...options.env,
    },
    `${base}/healthz`,
  );
  return { base, child };
}

/** The Basic-auth header of an account's app id and API key. */
export function basicAuthorization(credentials: { app_id: string; api_key: string }): string {
  return `Basic ${Buffer.from(`${credentials.app_id}:${credentials.api_key}`).toString('base64')}`;
}

/** Creates the `i`th bench order (an e-mail order with no package yet) and returns its id. */
export async function createBenchOrder(base: string, authorization: string, i: number): Promise<string> {
  const response = await fetch(`${base}/v1/orders`, {
    method: 'POST',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench Sender',
      email: `sender-${i}@example.com`,
      recipient_name: 'Bench Recipient',
      recipient_email: `recipient-${i}@example.com`,
    }),
  });
  if (!response.ok) throw new Error(`creating an order answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Migrates the bench database and installs the bench's shop, as `shops add` does: the account's app
 * id and API key sign the /v1 requests (`basicAuthorization`).
 */
export async function installBenchShop(
  databaseUrl: string,
  shop: string,
): Promise<{ app_id: string; api_key: string }> {
  const handle = await openPostgres(databaseUrl);
  try {
    await migrateToLatest(handle.db);
    return (await adminCommands(handle.db).run('shops.add', { shop })) as { app_id: string; api_key: string };
  } finally {
    await handle.close();
  }
}
