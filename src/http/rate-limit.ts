import type { Context, Next } from 'koa';
import type { Redis } from 'ioredis';
import { HttpError } from './errors.ts';

/**
 * Per-account request budget for the /v1 API (docs/design.md §1: 429 with Retry-After). A fixed
 * one-minute window counted in Redis, so every web process shares one budget per account. If Redis
 * does not answer, requests pass: a queue outage must not take the API down with it (PostgreSQL,
 * not Redis, holds every order).
 */
export function rateLimit(options: { redis: Redis; prefix: string; perMinute: number; now?: () => Date }) {
  // The window follows the injected clock (tests move it across a minute); the key's TTL in Redis
  // is real time and only tidies up.
  const now = () => (options.now ? options.now().getTime() : Date.now());
  return async (ctx: Context, next: Next): Promise<void> => {
    const account = ctx.state.account;
    if (!account || options.perMinute <= 0) return next();
    const window = Math.floor(now() / 60_000);
    const key = `${options.prefix}:rate:${account.id}:${window}`;
    let count: number;
    try {
      count = await options.redis.incr(key);
      if (count === 1) await options.redis.expire(key, 61);
    } catch (error) {
      ctx.log.warn(
        { err: error, redisStatus: options.redis.status },
        'rate limiter could not reach Redis; letting the request through',
      );
      return next();
    }
    const remaining = Math.max(0, options.perMinute - count);
    ctx.set('RateLimit-Limit', String(options.perMinute));
    ctx.set('RateLimit-Remaining', String(remaining));
    if (count > options.perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - now()) / 1000));
      throw new HttpError(
        429,
        'rate_limited',
        `Too many requests: ${options.perMinute} a minute per account. Retry after ${retryAfter} s.`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    await next();
  };
}
