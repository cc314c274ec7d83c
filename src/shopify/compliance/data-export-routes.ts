import Router from '@koa/router';
import type { z } from 'zod';
import { currentAccount } from '../../http/basic-auth.ts';
import type { ShopifyServices } from '../services.ts';
import { getDataExport, listDataExports, type dataExportListJson } from './data-exports.ts';

/**
 * Routes for the shop's Doorstep account under /v1 (mounted after the Basic-auth middleware):
 * customer data exports produced by customers/data_request.
 */
export function shopifyAccountRoutes(shopify: ShopifyServices): Router {
  const { db } = shopify.deps;
  const router = new Router({ prefix: '/v1/shopify' });
  router.get('/data-exports', async (ctx) => {
    const rows = await listDataExports(db, currentAccount(ctx).id);
    ctx.body = {
      data: rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    } satisfies z.output<typeof dataExportListJson>;
  });
  router.get('/data-exports/:id', async (ctx) => {
    ctx.body = await getDataExport(db, currentAccount(ctx).id, ctx.params.id!);
  });
  return router;
}
