import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connection settings per BullMQ's production guide: a worker's blocking connection must retry
 * forever (`maxRetriesPerRequest: null`) so a Redis blip pauses work instead of crashing it; a
 * producer (the web process adding jobs) fails fast so an HTTP request never hangs on Redis —
 * PostgreSQL holds the truth and the reconciler re-enqueues what a failed add missed.
 */
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
          retryStrategy: (times) => Math.min(times * 200, 5_000),
        };
  const redis = new Redis(url, { ...options, lazyConnect: false });
  // Without a listener ioredis reports every reconnect attempt as an unhandled error event.
  redis.on('error', onError ?? (() => {}));
  return redis;
}
