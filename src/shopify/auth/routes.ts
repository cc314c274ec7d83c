import Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.ts';
import { sendAdminPage } from '../admin/page.ts';
import { installShop } from './install.ts';
import { authenticateSessionToken } from './session-auth.ts';
import type { ShopifyServices } from '../services.ts';
import { parseShopDomain, shopDomain } from '../shops.ts';
import { bounceForSessionToken, sessionTokenExpired } from './session-token-bounce.ts';
import { sessionTokens } from './tokens.ts';

/**
 * Public routes under /shopify: OAuth install and the embedded admin (token exchange); the webhook
 * endpoint is `shopifyWebhookIntake` (intake/webhook-route.ts). Mounted before the /v1 Basic-auth middleware.
 */
export function shopifyRoutes(shopify: ShopifyServices): Router {
  const { library } = shopify;
  const router = new Router({ prefix: '/shopify' });

  // OAuth install: Shopify sends the merchant here; the library answers with the redirect itself.
  router.get('/auth', async (ctx) => {
    const shop = parseShopDomain(ctx.query.shop);
    ctx.respond = false;
    await library.auth.begin({
      shop,
      callbackPath: '/shopify/auth/callback',
      isOnline: false,
      rawRequest: ctx.req,
      rawResponse: ctx.res,
    });
  });

  router.get('/auth/callback', async (ctx) => {
    let result;
    try {
      result = await library.auth.callback<Record<string, string | string[]>>({
        rawRequest: ctx.req,
        rawResponse: ctx.res,
        expiring: true,
      });
    } catch (error) {
      throw new HttpError(
        400,
        'invalid_request',
        `The Shopify OAuth callback is not valid: ${(error as Error).message}`,
      );
    }
    // The Node adapter has already set the headers (clearing the state cookie) on ctx.res; other adapters return them.
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    const { session } = result;
    await installShop(shopify, session.shop, sessionTokens(session));
    ctx.redirect(`https://${session.shop}/admin/apps/${encodeURIComponent(shopify.config.apiKey)}`);
  });

  // The embedded admin, also served at the app's root (app-home.ts), which is where Shopify opens it.
  router.get('/app', (ctx) => serveEmbeddedAdmin(shopify, ctx));

  // The embedded admin's JSON API (/shopify/api/*) lives in ./admin/routes.ts.

  return router;
}

/**
 * The embedded admin page. Shopify loads it with an `id_token` (a session token) in the query; the
 * token says which shop, and installs the shop by token exchange when we hold no working token.
 * The page itself (React + Polaris, admin/page.ts) loads its data from /shopify/api.
 */
export async function serveEmbeddedAdmin(shopify: ShopifyServices, ctx: Context): Promise<void> {
  const token = typeof ctx.query.id_token === 'string' ? ctx.query.id_token : undefined;
  // A reload of any admin page in the iframe (Orders, an order, Settings), not only Home's, gets a
  // fresh token through the bounce page instead of a 401 JSON page (merchant probe). A token given
  // but forged or empty is still refused.
  const stale = token === undefined || sessionTokenExpired(token, shopify.deps.now?.() ?? new Date());
  if (ctx.query.embedded === '1' && stale) {
    const shop = shopDomain.safeParse(ctx.query.shop);
    if (shop.success) return bounceForSessionToken(ctx, shop.data);
  }
  await authenticateSessionToken(shopify, ctx, token ?? '');
  sendAdminPage(ctx, { apiKey: shopify.config.apiKey, development: shopify.config.development });
}
