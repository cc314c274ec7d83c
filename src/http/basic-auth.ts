import type { Context, Next } from 'koa';
import { authenticateCached, type Account } from '../accounts/accounts.ts';
import { ApiKeyCache } from '../accounts/api-key-cache.ts';
import { hashApiKey, parseBasicAuth } from '../accounts/credentials.ts';
import type { Db } from '../db/database.ts';
import { unauthorized } from './errors.ts';
import type { FailedAuthLimit } from './failed-auth-limit.ts';

declare module 'koa' {
  interface DefaultState {
    account?: Account;
  }
}

/**
 * Spec §5: every request carries HTTP Basic credentials — user = app id, password = API key.
 * Checked keys are remembered for a short while (`ApiKeyCache`): the lookup was half the cost of a GET.
 */
export function basicAuth(db: Db, options: { failures?: FailedAuthLimit; cache?: ApiKeyCache<Account> } = {}) {
  const cache = options.cache ?? new ApiKeyCache<Account>();
  return async (ctx: Context, next: Next): Promise<void> => {
    const credentials = parseBasicAuth(ctx.get('Authorization') || undefined);
    // A key this process verified moments ago is known good: it skips the database, and reads the
    // lockout at most once a second (a locked app id gets 429 even with the right key).
    const known = credentials ? cache.get(credentials.user, hashApiKey(credentials.password)) : undefined;
    if (known && credentials) {
      await options.failures?.refuseKnownKeyIfBlocked(ctx, credentials.user);
      ctx.state.account = known;
      return next();
    }
    await options.failures?.refuseIfBlocked(ctx, credentials?.user ?? null);
    if (!credentials) {
      // Garbage credentials are a failed attempt too (from this address), but no credentials at all are just a question.
      if (ctx.get('Authorization')) await options.failures?.recordFailure(ctx, null);
      throw unauthorized();
    }
    const account = await authenticateCached(db, cache, credentials.user, credentials.password);
    if (!account) {
      await options.failures?.recordFailure(ctx, credentials.user);
      throw unauthorized('The app id or API key is not valid.');
    }
    ctx.state.account = account;
    await next();
  };
}

export function currentAccount(ctx: Context): Account {
  const account = ctx.state.account;
  if (!account) throw unauthorized();
  return account;
}
