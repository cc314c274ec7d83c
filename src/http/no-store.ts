import type { Context, Next } from 'koa';
import { isUnder } from './outside.ts';

/**
 * Answers under `prefix` carry personal data (names, e-mails, capability URLs): no cache may keep
 * them, success or error.
 */
export function noStoreUnder(prefix: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (isUnder(ctx.path, prefix)) ctx.set('Cache-Control', 'no-store');
    await next();
  };
}
