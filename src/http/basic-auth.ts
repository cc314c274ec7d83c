import type { Context, Next } from 'koa';
import { authenticateCached, type Account } from '../accounts/accounts.ts';
import { ApiKeyCache } from '../accounts/api-key-cache.ts';
import { parseBasicAuth } from '../accounts/credentials.ts';
import type { Db } from '../db/database.ts';
import { unauthorized } from './errors.ts';

declare module 'koa' {
  interface DefaultState {
    account?: Account;
  }
}

/**
 * Spec §5: every request carries HTTP Basic credentials — user = app id, password = API key.
 * Checked keys are remembered for a short while (`ApiKeyCache`): the lookup was half the cost of a GET.
 */
export function basicAuth(db: Db, cache: ApiKeyCache<Account> = new ApiKeyCache<Account>()) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const credentials = parseBasicAuth(ctx.get('Authorization') || undefined);
    if (!credentials) throw unauthorized();
    const account = await authenticateCached(db, cache, credentials.user, credentials.password);
    if (!account) throw unauthorized('The app id or API key is not valid.');
    ctx.state.account = account;
    await next();
  };
}

export function currentAccount(ctx: Context): Account {
  const account = ctx.state.account;
  if (!account) throw unauthorized();
  return account;
}
