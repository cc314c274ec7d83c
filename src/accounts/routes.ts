import Router from '@koa/router';
import type { Db } from '../db/database.ts';
import { currentAccount } from '../http/basic-auth.ts';
import { readJsonObject } from '../http/json-body.ts';
import { findAccountLocale } from './locale.ts';
import { removeAccountLogo, saveAccountLogo } from './logo.ts';
import { readLogoBody } from './logo-routes.ts';
import { accountSettingsJson, findAccountSettings, parseAccountSettings, updateAccountSettings } from './settings.ts';

/**
 * `GET` and `PUT /v1/account/settings` (behind Basic auth): the calling account's logo,
 * not-watched note and language. PUT changes only the fields it names, as `PUT /v1/orders/{id}` does.
 * `PUT /v1/account/logo` uploads the logo (an image body), `DELETE` removes it; both answer the settings.
 */
export function accountSettingsRoutes(db: Db, now: () => Date, publicUrl: string): Router {
  const router = new Router({ prefix: '/v1/account' });
  router.get('/settings', async (ctx) => {
    const accountId = currentAccount(ctx).id;
    ctx.body = accountSettingsJson(await findAccountSettings(db, accountId), await findAccountLocale(db, accountId));
  });
  router.put('/settings', async (ctx) => {
    const update = parseAccountSettings(await readJsonObject(ctx));
    const accountId = currentAccount(ctx).id;
    const settings = await updateAccountSettings(db, accountId, update, now());
    ctx.body = accountSettingsJson(settings, await findAccountLocale(db, accountId));
  });
  router.put('/logo', async (ctx) => {
    const accountId = currentAccount(ctx).id;
    await saveAccountLogo(db, accountId, await readLogoBody(ctx), publicUrl, now());
    ctx.body = accountSettingsJson(await findAccountSettings(db, accountId), await findAccountLocale(db, accountId));
  });
  router.delete('/logo', async (ctx) => {
    const accountId = currentAccount(ctx).id;
    await removeAccountLogo(db, accountId, publicUrl, now());
    ctx.body = accountSettingsJson(await findAccountSettings(db, accountId), await findAccountLocale(db, accountId));
  });
  return router;
}
