import Router from '@koa/router';
import { HttpError } from '../http/errors.ts';
import { adminPageRoutes } from './admin-page.ts';
import { serveEmbeddedAdmin } from './routes.ts';
import type { ShopifyServices } from './services.ts';
import { installLink } from './install-link.ts';
import {
  bounceForSessionToken,
  sendBouncePage,
  sessionTokenExpired,
  SESSION_TOKEN_BOUNCE_PATH,
} from './session-token-bounce.ts';
import { shopDomain } from './shops.ts';

/**
 * `/`, the app's `application_url` (shopify.app.toml). Shopify opens the embedded app there with
 * `?shop=…&host=…&embedded=1&id_token=…` (Shopify managed install), and the Shopify CLI joins the
 * relative webhook URIs onto it, which is why it is the server's root and not a page below it.
 *
 * - with `id_token`: the embedded admin, exactly as at `/shopify/app`; in the iframe (`embedded=1`)
 *   with an expired one, or none, the session-token bounce page (session-token-bounce.ts);
 * - with only `shop` (the front page's Install form, or a link naming the shop): Shopify's install
 *   page for it (install-link.ts), which installs the app and opens it embedded;
 * - with neither: a short page saying what Doorstep is, for a person who types the address.
 *
 * The embedded admin's other paths, its assets and the development App Bridge stand-in are mounted
 * here too (admin-page.ts): they are the same page.
 */
export function appHomeRoutes(shopify: ShopifyServices): Router {
  const router = new Router();
  router.use(adminPageRoutes(shopify, (ctx) => serveEmbeddedAdmin(shopify, ctx)).routes());
  router.get(SESSION_TOKEN_BOUNCE_PATH, (ctx) => {
    const shop = shopDomain.safeParse(ctx.query.shop);
    if (!shop.success)
      throw new HttpError(400, 'invalid_request', 'shop must be a shop domain like my-store.myshopify.com.');
    sendBouncePage(ctx, { apiKey: shopify.config.apiKey, development: shopify.config.development, shop: shop.data });
  });
  router.get('/', async (ctx) => {
    const embedded = ctx.query.embedded === '1';
    const token = typeof ctx.query.id_token === 'string' ? ctx.query.id_token : undefined;
    if (token !== undefined && !(embedded && sessionTokenExpired(token, shopify.deps.now?.() ?? new Date())))
      return serveEmbeddedAdmin(shopify, ctx);
    if (ctx.query.shop !== undefined) {
      // The domain becomes a host name the OAuth start redirects to: only `{name}.myshopify.com` passes.
      const shop = shopDomain.safeParse(ctx.query.shop);
      if (!shop.success)
        throw new HttpError(400, 'invalid_request', 'shop must be a shop domain like my-store.myshopify.com.');
      // In the admin's iframe without a fresh token: App Bridge gets one (session-token-bounce.ts).
      if (embedded) return bounceForSessionToken(ctx, shop.data);
      const { config } = shopify;
      ctx.redirect(
        installLink(shop.data, config.apiKey, config.development ? `${config.appUrl}/sandbox/shopify` : null),
      );
      return;
    }
    // Not rendered in the admin, so nobody may frame it (Shopify's iframe protection rule for such pages).
    ctx.set('Content-Security-Policy', "frame-ancestors 'none';");
    ctx.type = 'html';
    ctx.body = ABOUT_PAGE;
  });
  return router;
}

const ABOUT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Doorstep</title></head>
<body><h1>Doorstep</h1>
<p>Doorstep sends a recorded video gift message to the gift's recipient the moment the package is delivered.</p>
<p>Store owners install it on Shopify and open it from their Shopify admin. To install it on your store, enter
its address:</p>
<form method="get" action="/"><label>Shop <input name="shop" placeholder="my-store.myshopify.com" required></label>
<button type="submit">Install</button></form>
<h2>Developers and operators</h2>
<ul>
<li><a href="/docs">API reference</a> (the <code>/v1</code> order API, with <a href="/v1/openapi.json">its OpenAPI document</a>)</li>
<li>Try the whole story locally — order, recorded video, delivery, the recipient's watch page — with the README's quick start: <code>npm run cli -- accounts create --name "My store"</code>, then the <code>curl</code> steps it lists</li>
<li>A development shop's embedded admin: <code>npm run cli -- shopify admin-url my-store.myshopify.com</code></li>
<li><a href="/privacy">Privacy policy</a> and <a href="/support">support</a></li>
<li><a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>; <a href="/metrics">/metrics</a> and <a href="/admin/queues">/admin/queues</a> need the operator password</li>
</ul>
</body></html>`;
