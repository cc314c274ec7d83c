import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logger.ts';
import { CARRIER_CODES, type CarrierCode } from './carrier-code.ts';
import type { CarrierBudget } from './budget.ts';
import { CarrierQuotaError } from './clients/errors.ts';
import type { CarrierCallBudget } from './clients/types.ts';
import { withDeadline } from '../process/deadline.ts';

/** How long a quota check waits for Redis (a connection still coming up, a blip) before failing closed. */
const REDIS_WAIT_MS = 500;

export interface CarrierQuotaOptions {
  /** A fail-fast connection (no offline queue): a check must never hang on Redis. */
  redis: Redis;
  /** Processes sharing a Redis and a prefix share each carrier's budget. */
  prefix: string;
  budgets: Readonly<Record<CarrierCode, CarrierBudget>>;
  logger: Logger;
}

/**
 * Each carrier account's tracking-call budget, counted in Redis so every web and worker process
 * spends from the same one: a fixed window per carrier (rate-limiter-flexible's atomic Lua counter),
 * key `<prefix>:carrier-quota:<carrier>`. Validation on PUT and polling draw on the same budget.
 *
 * When Redis does not answer, the check fails closed (CarrierQuotaError `unchecked`): the carrier
 * is not called. Over-spending can get a carrier account throttled or suspended for everyone, while
 * not calling costs little: PUT still stores the number and answers with a warning, and pollers
 * reschedule the packages (they cannot run without Redis anyway: BullMQ lives there).
 */
export function createCarrierQuota(options: CarrierQuotaOptions): Record<CarrierCode, CarrierCallBudget> {
  const { redis, logger } = options;
  const whenReady = readiness(redis);
  let lastWarning = 0;
  return Object.fromEntries(
    CARRIER_CODES.map((carrier) => {
      const budget = options.budgets[carrier];
      const limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${options.prefix}:carrier-quota`,
        points: budget.max,
        duration: budget.durationMs / 1_000,
      });
      const callBudget: CarrierCallBudget = {
        async take() {
          try {
            await whenReady();
            await withDeadline(limiter.consume(carrier), REDIS_WAIT_MS, 'Redis to answer the quota check');
          } catch (error) {
            if (error instanceof RateLimiterRes) throw new CarrierQuotaError(carrier, 'spent', error.msBeforeNext);
            // One line every 10 s is enough for an outage that fails every call.
            if (Date.now() - lastWarning > 10_000) {
              lastWarning = Date.now();
              logger.warn(
                { carrier, err: error, redisStatus: redis.status },
                'carrier quota could not be checked in Redis; not calling the carrier',
              );
            }
            throw new CarrierQuotaError(carrier, 'unchecked', null, { cause: error });
          }
        },
        async holdOff(ms) {
          if (ms <= 0) return;
          // Already refusing for at least that long: keep the longer answer. Otherwise refuse
          // everything for that long; the window then starts afresh (the carrier just told us where
          // it stands). Whole seconds, at least one: the limiter's TTL is in seconds, 0 never expires.
          const seconds = Math.max(1, Math.ceil(ms / 1_000));
          try {
            await whenReady();
            const current = await withDeadline(limiter.get(carrier), REDIS_WAIT_MS, 'Redis to answer the quota read');
            if (current && current.remainingPoints === 0 && current.msBeforeNext >= seconds * 1_000) return;
            await withDeadline(limiter.block(carrier, seconds), REDIS_WAIT_MS, 'Redis to answer the quota hold');
            logger.info({ carrier, seconds }, 'carrier asked us to wait; no process calls it until then');
          } catch (error) {
            logger.warn({ carrier, err: error }, 'could not record the carrier rate limit in Redis');
          }
        },
        async left() {
          // No key yet (nothing spent this window) means the whole budget is left.
          const current = await withDeadline(limiter.get(carrier), REDIS_WAIT_MS, 'Redis to answer the quota read');
          return current ? Math.max(0, current.remainingPoints) : budget.max;
        },
      };
      return [carrier, callBudget];
    }),
  ) as Record<CarrierCode, CarrierCallBudget>;
}

/**
 * Resolves once the connection is ready; rejects at once when it was closed for good, else after
 * REDIS_WAIT_MS. Callers arriving meanwhile share one wait (one 'ready' listener, however many calls).
 */
function readiness(redis: Redis): () => Promise<void> {
  let waiting: Promise<void> | null = null;
  return () => {
    if (redis.status === 'ready') return Promise.resolve();
    if (redis.status === 'end') return Promise.reject(new Error('Redis connection is closed'));
    waiting ??= new Promise<void>((resolve, reject) => {
      const onReady = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        redis.off('ready', onReady);
        reject(new Error(`Redis not ready within ${REDIS_WAIT_MS} ms (${redis.status})`));
      }, REDIS_WAIT_MS);
      redis.once('ready', onReady);
    }).finally(() => {
      waiting = null;
    });
    return waiting;
  };
}
