import type { Redis } from 'ioredis';
import type { Context } from 'koa';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors.ts';

/** The window failed Basic-auth attempts are counted in. */
const WINDOW_SECONDS = 15 * 60;
/**
 * A key verified moments ago (the busy client's hot path) reads the lockout from Redis at most this
 * often per app id and address, so a lockout another process counted reaches it within a second.
 */
export const KNOWN_KEY_RECHECK_MS = 1000;
const KNOWN_KEY_MEMO_LIMIT = 10_000;

export interface FailedAuthLimits {
  /** Failed attempts per app id per 15 minutes before it gets 429 (0 = off). */
  perAppId: number;
  /** Failed attempts per client address per 15 minutes before it gets 429 (0 = off). */
  perClientIp: number;
}

/**
 * Guessing API keys (issue 13, brute force): failed Basic-auth attempts are counted per app id and
 * per client address, in Redis so every web process shares the count. Past either limit, requests
 * with that app id or from that address get 429 with `Retry-After` until the window ends — whether
 * the app id exists or not, so the answer tells nothing. A correct key does not reset the count
 * (that would let a guesser learn when it was right). If Redis does not answer, attempts pass:
 * the keys are 256-bit random, so the limit is a second line, not the lock.
 *
 * The client address is the TCP peer (X-Forwarded-For is not trusted): behind a reverse proxy every
 * client shares the proxy's address, so set the per-address limit to 0 there and let the proxy limit.
 */
export class FailedAuthLimit {
  private readonly byApp: RateLimiterRedis | null;
  private readonly byIp: RateLimiterRedis | null;
  /** (app id, address) → until when "not blocked" holds without asking Redis again. */
  private readonly notBlockedUntil = new Map<string, number>();

  constructor(redis: Redis, prefix: string, limits: FailedAuthLimits) {
    const limiter = (name: string, points: number) =>
      points > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${prefix}:auth-failures:${name}`,
            points,
            duration: WINDOW_SECONDS,
          })
        : null;
    this.byApp = limiter('app', limits.perAppId);
    this.byIp = limiter('ip', limits.perClientIp);
  }

  /** Throws 429 when this app id or address has failed too often; call before checking the key. */
  async refuseIfBlocked(ctx: Context, appId: string | null): Promise<void> {
    const blocked = await this.blockedFor(ctx, [
      [appId === null ? null : this.byApp, appId ?? ''],
      [this.byIp, ctx.ip],
    ]);
    if (blocked === null) return;
    const retryAfter = Math.max(1, Math.ceil(blocked / 1000));
    throw new HttpError(429, 'rate_limited', `Too many failed sign-in attempts. Retry after ${retryAfter} s.`, {
      'Retry-After': String(retryAfter),
    });
  }

  /**
   * The same check for a key this process verified moments ago: the lockout holds "even with the
   * right key" (docs/api.md), but a busy client's every request should not cost two Redis reads,
   * so a "not blocked" answer is trusted for `KNOWN_KEY_RECHECK_MS`.
   */
  async refuseKnownKeyIfBlocked(ctx: Context, appId: string): Promise<void> {
    const key = `${appId}\n${ctx.ip}`;
    if ((this.notBlockedUntil.get(key) ?? 0) > Date.now()) return;
    await this.refuseIfBlocked(ctx, appId);
    if (this.notBlockedUntil.size >= KNOWN_KEY_MEMO_LIMIT) this.notBlockedUntil.clear();
    this.notBlockedUntil.set(key, Date.now() + KNOWN_KEY_RECHECK_MS);
  }

  /** Counts one failed attempt for the app id (when the credentials named one) and the address. */
  async recordFailure(ctx: Context, appId: string | null): Promise<void> {
    // A failure here may start a lockout: known keys ask Redis again on their next request.
    this.notBlockedUntil.clear();
    try {
      await Promise.all([
        appId === null ? undefined : this.byApp?.penalty(appId.slice(0, 200)),
        this.byIp?.penalty(ctx.ip),
      ]);
    } catch (error) {
      ctx.log.warn({ err: error }, 'could not count a failed sign-in in Redis; letting it pass');
    }
  }

  /** Milliseconds until the longest block ends, or null when nothing is blocked. */
  private async blockedFor(ctx: Context, checks: Array<[RateLimiterRedis | null, string]>): Promise<number | null> {
    let longest: number | null = null;
    for (const [limiter, key] of checks) {
      if (!limiter) continue;
      let state: RateLimiterRes | null;
      try {
        state = await limiter.get(key.slice(0, 200));
      } catch (error) {
        ctx.log.warn({ err: error }, 'could not read failed sign-ins from Redis; letting the request through');
        return null;
      }
      if (state && state.consumedPoints >= limiter.points) longest = Math.max(longest ?? 0, state.msBeforeNext);
    }
    return longest;
  }
}
