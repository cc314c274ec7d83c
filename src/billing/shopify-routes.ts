import Router from '@koa/router';
import type { BillingJson } from '../shopify/admin/contract.ts';
import type { ShopifyServices } from '../shopify/services.ts';
import { currentShop, sessionTokenAuth } from '../shopify/auth/session-auth.ts';
import type { ShopifyBilling } from './shopify-billing.ts';

/**
 * The embedded admin's billing API (session token) and the public return URL of Shopify's approval
 * page. Mounted next to the Shopify routes in src/app.ts, before the /v1 auth.
 */
export function shopifyBillingRoutes(billing: ShopifyBilling, shopify: ShopifyServices): Router {
  const router = new Router({ prefix: '/shopify' });
  const auth = sessionTokenAuth(shopify);

  router.get('/api/billing', auth, async (ctx) => {
    ctx.body = (await billing.billing(currentShop(ctx))) satisfies BillingJson;
  });

  router.post('/api/billing/subscribe', auth, async (ctx) => {
    ctx.body = (await billing.subscribe(currentShop(ctx))) satisfies BillingJson;
  });

  // Public: Shopify's approval page sends the merchant here with `charge_id`; the status is asked of Shopify.
  router.get('/billing/return', async (ctx) => {
    ctx.redirect(await billing.returnFromApproval(ctx.query.shop, ctx.query.charge_id));
  });

  return router;
}
