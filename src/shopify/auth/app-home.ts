import Router from '@koa/router';
import { HttpError } from '../../http/errors.ts';
import { adminPageRoutes } from '../admin/page.ts';
import { serveEmbeddedAdmin } from './routes.ts';
import type { ShopifyServices } from '../services.ts';
import { sendLandingPage } from '../../site/pages.ts';
import { shopLinks } from '../admin/shop-links.ts';
import { bounceForSessionToken, sendBouncePage, SESSION_TOKEN_BOUNCE_PATH } from './session-token-bounce.ts';
import { shopDomain, shopDomainFromTyped } from '../shops.ts';

/**
 * `/`, the app's `application_url` (shopify.app.toml). Shopify opens the embedded app there with
 * `?shop=…&host=…&embedded=1&id_token=…` (Shopify managed install), and the Shopify CLI joins the
 * relative webhook URIs onto it, which is why it is the server's root and not a page below it.
 *
 * - with `id_token`: the embedded admin, exactly as at `/shopify/app`; in the iframe (`embedded=1`)
 *   with an expired one, or none, the session-token bounce page (session-token-bounce.ts);
 * - with only `shop` (the front page's Install form, or a link naming the shop): Shopify's install
 *   page for it (shop-links.ts), which installs the app and opens it embedded;
 * - with neither: the landing page (src/site/pages.ts), with the Install form.
 *
 * The embedded admin's other paths, its assets and the development App Bridge stand-in are mounted
 * here too (admin/page.ts): they are the same page.
 */
export function appHomeRoutes(shopify: ShopifyServices): Router {
  const router = new Router();
  router.use(adminPageRoutes((ctx) => serveEmbeddedAdmin(shopify, ctx)).routes());
  router.get(SESSION_TOKEN_BOUNCE_PATH, (ctx) => {
    const shop = shopDomain.safeParse(ctx.query.shop);
    if (!shop.success)
      throw new HttpError(400, 'invalid_request', 'shop must be a shop domain like my-store.myshopify.com.');
    sendBouncePage(ctx, { apiKey: shopify.config.apiKey, development: shopify.config.development, shop: shop.data });
  });
  router.get('/', async (ctx) => {
    const embedded = ctx.query.embedded === '1';
    const token = typeof ctx.query.id_token === 'string' ? ctx.query.id_token : undefined;
    // An expired token in the iframe is bounced there, as on every admin page (serveEmbeddedAdmin).
    if (token !== undefined) return serveEmbeddedAdmin(shopify, ctx);
    if (ctx.query.shop !== undefined) {
      // The domain becomes a host name the OAuth start redirects to: only `{name}.myshopify.com` passes.
      if (embedded) {
        // In the admin's iframe without a fresh token: App Bridge gets one (session-token-bounce.ts).
        const shop = shopDomain.safeParse(ctx.query.shop);
        if (!shop.success)
          throw new HttpError(400, 'invalid_request', 'shop must be a shop domain like my-store.myshopify.com.');
        return bounceForSessionToken(ctx, shop.data);
      }
      // The front page's Install form (or a link naming the shop): read as a person types it, and a
      // shop it cannot read is said on the form, not in JSON.
      const typed = typeof ctx.query.shop === 'string' ? ctx.query.shop : '';
      const shop = shopDomainFromTyped(typed);
      if (shop === null) {
        ctx.status = 400;
        return sendLandingPage(ctx, { typed });
      }
      ctx.redirect(shopLinks(shopify.config, shop).install);
      return;
    }
    sendLandingPage(ctx);
  });
  return router;
}
