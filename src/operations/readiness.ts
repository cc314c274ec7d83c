import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Db } from '../db/database.ts';
import { knownMigrations } from '../db/migrate.ts';

/** How long each dependency may take to answer before the process counts as not ready. */
export const READINESS_TIMEOUT_MS = 1_000;

export type CheckResult = { status: 'ok' } | { status: 'failing'; reason: string };

export interface Readiness {
  status: 'ready' | 'not_ready';
  checks: { postgres: CheckResult; redis: CheckResult; migrations: CheckResult };
}

export interface ReadinessDeps {
  db: Db;
  redis: Redis;
  timeoutMs?: number;
}

/**
 * `/readyz`: may this process take traffic? PostgreSQL answers `select 1`, Redis answers PING, each
 * within a short timeout, and the database has every migration this build knows (a rolling deploy
 * whose migration has not run yet is not ready). Reasons name the part, never a URL or secret.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const timeoutMs = deps.timeoutMs ?? READINESS_TIMEOUT_MS;
  const [postgres, redis, migrations] = await Promise.all([
    check(() => sql`select 1`.execute(deps.db), timeoutMs, 'postgres'),
    check(() => ping(deps.redis, timeoutMs), timeoutMs, 'redis'),
    check(() => migrationsCurrent(deps.db), timeoutMs, 'migrations'),
  ]);
  const checks = { postgres, redis, migrations };
  const ready = Object.values(checks).every((result) => result.status === 'ok');
  return { status: ready ? 'ready' : 'not_ready', checks };
}

/** The applied list must contain every known migration (an older build may run on a newer schema). */
export function missingMigrations(known: readonly string[], applied: readonly string[]): string[] {
  const done = new Set(applied);
  return known.filter((name) => !done.has(name));
}

/**
 * The producer connection fails fast (no offline queue): a PING while it is still (re)connecting
 * would fail at once. Wait for it to be ready — the caller's timeout bounds the wait.
 */
async function ping(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'end') throw new Error('redis connection closed');
  if (redis.status !== 'ready') {
    // The listener goes with the timeout: probes every few seconds during an outage must not pile up listeners.
    await new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        redis.off('ready', onReady);
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      redis.once('ready', onReady);
    });
  }
  await redis.ping();
}

async function migrationsCurrent(db: Db): Promise<void> {
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const missing = missingMigrations(
    knownMigrations(),
    applied.rows.map((row) => row.name),
  );
  if (missing.length > 0) throw new Error(`not applied: ${missing.join(', ')}`);
}

async function check(probe: () => Promise<unknown>, timeoutMs: number, part: string): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'failing', reason: describe(error, part) };
  } finally {
    clearTimeout(timer);
  }
}

/** A short reason: the error's message for our own checks, a generic word for driver errors (may hold hosts). */
function describe(error: unknown, part: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/^(no answer within|not applied:)/.test(message)) return message;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${part} unreachable (${code})` : `${part} unreachable`;
}
