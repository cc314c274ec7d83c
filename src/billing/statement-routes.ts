import Router from '@koa/router';
import { currentAccount } from '../http/basic-auth.ts';
import type { Db } from '../db/database.ts';
import { monthlyStatement } from './statements.ts';

/** `GET /v1/billing/statements/{YYYY-MM}`: the calling account's statement (behind Basic auth). */
export function statementRoutes(db: Db, now: () => Date): Router {
  const router = new Router({ prefix: '/v1/billing' });
  router.get('/statements/:month', async (ctx) => {
    ctx.body = await monthlyStatement(db, currentAccount(ctx).id, ctx.params.month!, now());
  });
  return router;
}
