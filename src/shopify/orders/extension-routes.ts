import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { HttpError } from '../../http/errors.ts';
import { verifyExtensionSessionToken } from './extension-token.ts';
import { parseShopifyOrderId, recordLinksForOrder } from './record-links.ts';
import type { ShopifyServices } from '../services.ts';

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 3600;

const recordLinksQuery = z.object({ order_id: z.string() });

/**
 * Public routes the app's UI extensions call from the buyer's browser, under /shopify/extension.
 * Checkout and customer-account extensions run in a web worker on an origin Shopify may change
 * without notice, so every answer allows any origin (Shopify's "Required CORS headers"); they send
 * the session token in `Authorization`, never cookies. Mounted before the /v1 Basic-auth middleware.
 */
export function shopifyExtensionRoutes(shopify: ShopifyServices, publicUrl: string): Router {
  const { deps, library } = shopify;
  const now = deps.now ?? (() => new Date());
  const router = new Router({ prefix: '/shopify/extension' });

  router.options('/record-links', (ctx) => {
    allowAnyOrigin(ctx);
    ctx.set('Access-Control-Allow-Methods', 'GET, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Authorization');
    ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    ctx.status = 204;
  });

  // The record links of one order's video messages, for the thank-you and order-status pages.
  router.get('/record-links', async (ctx) => {
    // Set before anything can fail, so the extension can read our error answers too.
    allowAnyOrigin(ctx);
    // The answer holds record URLs (capabilities): no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
    const session = await verifyExtensionSessionToken(library, ctx.get('Authorization'));
    const query = recordLinksQuery.safeParse(ctx.query);
    const shopifyOrderId = query.success ? parseShopifyOrderId(query.data.order_id) : null;
    if (shopifyOrderId === null) {
      throw new HttpError(
        400,
        'invalid_request',
        'order_id must be a Shopify order id: 123, gid://shopify/Order/123 or gid://shopify/OrderIdentity/123.',
      );
    }
    ctx.body = await recordLinksForOrder({ db: deps.db, orders: deps.orders, publicUrl, now }, session, shopifyOrderId);
  });

  return router;
}

function allowAnyOrigin(ctx: Context): void {
  ctx.set('Access-Control-Allow-Origin', '*');
}
