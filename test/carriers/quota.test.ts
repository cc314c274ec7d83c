import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  CARRIER_BUDGETS,
  carrierBudgets,
  parseBudget,
  SANDBOX_BUDGET,
  type CarrierBudget,
} from '../../src/carriers/budget.ts';
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { CarrierQuotaError, CarrierRateLimitedError } from '../../src/carriers/clients/errors.ts';
import type { CarrierClient } from '../../src/carriers/clients/types.ts';
import { createUspsClient } from '../../src/carriers/clients/usps.ts';
import { createCarrierQuota } from '../../src/carriers/quota.ts';
import type { RunningCarrierSandbox } from '../../src/carriers/sandbox/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createRedisConnection } from '../../src/redis/connection.ts';
import { eventually } from '../support/workers.ts';
import type { SandboxControl } from './sandbox/support/control.ts';
import { carrierSandboxForFile } from './sandbox/support/sandbox-for-file.ts';

const NUMBER = '9400111899223197428490';
const logger = createLogger('silent');

let running: RunningCarrierSandbox;
let control: SandboxControl;
const connections: Redis[] = [];

carrierSandboxForFile((started) => ({ running, control } = started));
afterEach(() => {
  for (const redis of connections.splice(0)) redis.disconnect();
});

/**
 * A USPS client as one process builds it: its own Redis connection (the fail-fast kind the services
 * use) and its own quota instance, on the shared prefix.
 */
function uspsClientOfAProcess(prefix: string, usps: CarrierBudget, redisUrl = inject('redisUrl')): CarrierClient {
  const redis = createRedisConnection(redisUrl, 'producer');
  connections.push(redis);
  const quota = createCarrierQuota({ redis, prefix, budgets: { ...CARRIER_BUDGETS, usps }, logger });
  return createUspsClient({
    baseUrl: `${running.baseUrl}/usps`,
    clientId: 'doorstep-test',
    clientSecret: 'secret',
    budget: quota.usps,
  });
}

async function outcome(client: CarrierClient): Promise<'called' | CarrierQuotaError> {
  try {
    await client.track([NUMBER]);
    return 'called';
  } catch (error) {
    if (error instanceof CarrierQuotaError) return error;
    throw error;
  }
}

describe('the carrier quota in Redis', () => {
  it('is one budget for every process sharing the Redis and prefix', async () => {
    const prefix = `test-${randomUUID()}`;
    const first = uspsClientOfAProcess(prefix, { max: 3, durationMs: 60_000 });
    const second = uspsClientOfAProcess(prefix, { max: 3, durationMs: 60_000 });
    const results = [];
    for (const client of [first, second, first, second, first]) results.push(await outcome(client));

    expect(results.slice(0, 3)).toEqual(['called', 'called', 'called']);
    for (const refused of results.slice(3)) {
      expect(refused).toBeInstanceOf(CarrierQuotaError);
      expect(refused).toMatchObject({ reason: 'spent', carrier: 'usps' });
      // Until the window ends: somewhere within its minute.
      expect((refused as CarrierQuotaError).retryAfterMs).toBeGreaterThan(0);
      expect((refused as CarrierQuotaError).retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    // Both processes fetched a token (OAuth is not budgeted), but only three tracking calls left.
    expect(await control.stats('usps')).toMatchObject({ track_calls: 3, oauth_calls: 2 });

    // Another prefix (another deployment on the same Redis) has its own budget.
    expect(await outcome(uspsClientOfAProcess(`test-${randomUUID()}`, { max: 3, durationMs: 60_000 }))).toBe('called');
  });

  it('holds every process off the carrier for its 429 Retry-After, then lets calls through again', async () => {
    const prefix = `test-${randomUUID()}`;
    const first = uspsClientOfAProcess(prefix, { max: 50, durationMs: 1_000 });
    const second = uspsClientOfAProcess(prefix, { max: 50, durationMs: 1_000 });
    await control.faults('usps', { rate_limit: 1, retry_after_seconds: 2 });

    const limited = await first.track([NUMBER]).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(CarrierRateLimitedError);
    expect(limited).not.toBeInstanceOf(CarrierQuotaError);
    const held = await outcome(second);
    expect(held).toMatchObject({ reason: 'spent' });
    expect((held as CarrierQuotaError).retryAfterMs).toBeGreaterThan(0);
    expect((held as CarrierQuotaError).retryAfterMs).toBeLessThanOrEqual(2_000);
    expect((await control.stats('usps')).track_calls).toBe(1);

    // Every refused attempt meanwhile stays in this process; the first after the hold reaches USPS.
    await eventually(async () => ((await outcome(second)) === 'called' ? true : undefined), 10_000, 'the hold to end');
    expect((await control.stats('usps')).track_calls).toBe(2);
  });

  it('fails closed when Redis does not answer: the carrier is not called', async () => {
    const unused = await freePort();
    const client = uspsClientOfAProcess(
      `test-${randomUUID()}`,
      { max: 50, durationMs: 1_000 },
      `redis://127.0.0.1:${unused}`,
    );
    const started = Date.now();
    const refused = await outcome(client);
    expect(refused).toMatchObject({ reason: 'unchecked', retryAfterMs: null });
    // Bounded: a PUT must not hang on a Redis that is away.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await control.stats('usps')).track_calls).toBe(0);
  });
});

describe('budgets', () => {
  it('reads calls per window from the environment format', () => {
    expect(parseBudget('3/minute')).toEqual({ max: 3, durationMs: 60_000 });
    expect(parseBudget('60/hour')).toEqual({ max: 60, durationMs: 3_600_000 });
    expect(parseBudget(' 140 / 10s ')).toEqual({ max: 140, durationMs: 10_000 });
    expect(parseBudget('100000/day')).toEqual({ max: 100_000, durationMs: 86_400_000 });
    expect(parseBudget('1/4sec')).toEqual({ max: 1, durationMs: 4_000 });
    for (const bad of ['', '60', 'sixty/hour', '60/fortnight', '0/minute', '5/0s', '5/2d', '-1/minute', '1.5/minute']) {
      expect(() => parseBudget(bad), bad).toThrow(/calls per window|at least 1 call|between 1 second and 1 day/);
    }
  });

  it('uses a configured budget first, then the sandbox budget for sandboxed carriers, then the carrier default', () => {
    const configured: Record<CarrierCode, CarrierBudget | null> = {
      ups: null,
      fedex: null,
      usps: { max: 3, durationMs: 60_000 },
    };
    expect(carrierBudgets(configured, ['ups', 'usps'])).toEqual({
      ups: SANDBOX_BUDGET,
      fedex: CARRIER_BUDGETS.fedex,
      usps: { max: 3, durationMs: 60_000 },
    });
    expect(carrierBudgets({ ups: null, fedex: null, usps: null }, [])).toEqual(CARRIER_BUDGETS);
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
