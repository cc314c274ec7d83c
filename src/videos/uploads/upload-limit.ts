import type { Redis } from 'ioredis';
import type { Context } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from '../../http/errors.ts';

/** How many uploads the public record page takes in an hour, per order and per client address. */
export interface UploadLimits {
  perOrderPerHour: number;
  perClientIpPerHour: number;
}

/**
 * The record page's upload needs no credentials (the uuid in its URL is the capability), so it is
 * budgeted instead (issue 13): a sender re-records a few times, not hundreds. Counted in Redis so
 * every web process shares the budget; past it, 429 with `Retry-After`. If Redis does not answer the
 * upload goes through — a gift must not wait on the queue store.
 */
export class UploadLimit {
  private readonly byOrder: RateLimiterRedis;
  private readonly byIp: RateLimiterRedis;

  constructor(redis: Redis, prefix: string, limits: UploadLimits) {
    const limiter = (name: string, points: number) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:uploads:${name}`, points, duration: 3600 });
    this.byOrder = limiter('order', limits.perOrderPerHour);
    this.byIp = limiter('ip', limits.perClientIpPerHour);
  }

  /** Spends one upload of this order's and this address's budget, or throws 429. */
  async take(ctx: Context, orderUuid: string): Promise<void> {
    try {
      await this.byOrder.consume(orderUuid.slice(0, 100));
      await this.byIp.consume(ctx.ip);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        ctx.log.warn({ err: error }, 'could not count an upload in Redis; letting it through');
        return;
      }
      const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      const minutes = Math.ceil(retryAfter / 60);
      throw new HttpError(429, 'rate_limited', `Too many uploads; try again in ${minutes} min.`, {
        'Retry-After': String(retryAfter),
      });
    }
  }
}
