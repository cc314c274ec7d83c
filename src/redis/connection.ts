import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection settings per BullMQ's production guide: a worker's blocking connection must retry
 * forever (`maxRetriesPerRequest: null`) so a Redis blip pauses work instead of crashing it; a
 * producer (the web process adding jobs) fails fast so an HTTP request never hangs on Redis —
 * PostgreSQL holds the truth and the reconciler re-enqueues what a failed add missed.
 */
/** How long a producer's command may wait for Redis before it fails (and the caller goes on without it). */
export const PRODUCER_COMMAND_TIMEOUT_MS = 1_000;

export function createRedisConnection(
  url: string,
  role: 'worker' | 'producer',
  onError?: (error: Error) => void,
): Redis {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: false, retryStrategy: (times) => Math.min(times * 200, 5_000) }
      : {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
          // A Redis that is up but answers nothing (stopped, swapping, a full event loop) must not hold
          // a request either: each command gives up after a second (upgrade probe: a frozen Redis hung
          // every /v1 request, as long as it stayed frozen).
          commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS,
          retryStrategy: (times) => Math.min(times * 200, 5_000),
        };
  const redis = new Redis(url, { ...options, lazyConnect: false });
  // Without a listener ioredis reports every reconnect attempt as an unhandled error event.
  redis.on('error', onError ?? (() => {}));
  return redis;
}
