import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Middleware } from 'koa';
import type { CarrierCode } from '../carrier-code.ts';
import type { SandboxState } from './state.ts';

/** How one carrier words the errors the gate produces, in its own wire shape. */
export interface CarrierErrorDialect {
  carrier: CarrierCode;
  /** 429; the gate has already set Retry-After. */
  rateLimited(ctx: Context): void;
  /** A 5xx without Retry-After. */
  serverError(ctx: Context): void;
  /** 401 for a missing, unknown, expired or other carrier's token. */
  unauthorized(ctx: Context): void;
}

/**
 * In front of every fake tracking endpoint: counts the call, applies scripted faults and delay, and
 * checks the bearer token. Faults come before auth, as a gateway's rate limiter would.
 */
export function trackGate(state: SandboxState, dialect: CarrierErrorDialect): Middleware {
  return async (ctx, next) => {
    const carrier = state.carriers[dialect.carrier];
    carrier.stats.trackCalls += 1;
    const fault = carrier.faults.take();
    const { delayMs } = carrier.faults.settings;
    if (delayMs > 0 && !(await waitUnlessClientLeaves(ctx, delayMs))) return;
    if (fault?.kind === 'rate_limit') {
      ctx.set('Retry-After', String(fault.retryAfterSeconds));
      dialect.rateLimited(ctx);
      return;
    }
    if (fault?.kind === 'server_error') {
      dialect.serverError(ctx);
      return;
    }
    if (fault?.kind === 'unauthorized' || !state.tokens.accepts(dialect.carrier, ctx.get('authorization'))) {
      dialect.unauthorized(ctx);
      return;
    }
    await next();
  };
}

/** Resolves false when the client hung up first (a timed-out client), so no timer outlives it. */
async function waitUnlessClientLeaves(ctx: Context, delayMs: number): Promise<boolean> {
  const left = new AbortController();
  const onClose = (): void => left.abort();
  ctx.res.once('close', onClose);
  try {
    await sleep(delayMs, undefined, { signal: left.signal });
    return true;
  } catch {
    return false;
  } finally {
    ctx.res.off('close', onClose);
  }
}
