import Router from '@koa/router';
import type { Db } from '../db/database.ts';
import { currentAccount } from '../http/basic-auth.ts';
import { readJsonObject } from '../http/json-body.ts';
import { accountSettingsJson, findAccountSettings, parseAccountSettings, updateAccountSettings } from './settings.ts';

/**
 * `GET` and `PUT /v1/account/settings` (behind Basic auth): the calling account's logo and
 * not-watched note. PUT changes only the fields it names, as `PUT /v1/orders/{id}` does.
 */
export function accountSettingsRoutes(db: Db, now: () => Date): Router {
  const router = new Router({ prefix: '/v1/account' });
  router.get('/settings', async (ctx) => {
    ctx.body = accountSettingsJson(await findAccountSettings(db, currentAccount(ctx).id));
  });
  router.put('/settings', async (ctx) => {
    const update = parseAccountSettings(await readJsonObject(ctx));
    ctx.body = accountSettingsJson(await updateAccountSettings(db, currentAccount(ctx).id, update, now()));
  });
  return router;
}
