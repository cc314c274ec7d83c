import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import { bundleBrowserScript, sendAsset, stylesheetAsset, type BrowserAsset } from '../../http/browser-assets.ts';
import { html, type SafeHtml } from '../../videos/html.ts';

/**
 * The embedded admin's page: the HTML shell Shopify frames (App Bridge first, Polaris's stylesheet,
 * our React bundle from src/shopify/admin/ui/) and its assets. The data comes from /shopify/api with
 * session tokens; the shell holds none. On the development credentials the page loads App Bridge's
 * stand-in, which the development module serves (src/shopify/dev/app-bridge-standin.ts).
 */

/** Where Shopify requires embedded apps to load App Bridge from (always this URL, never a copy). */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/** Where the app serves the stand-in in local development (public development credentials only). */
export const DEV_APP_BRIDGE_PATH = '/dev/app-bridge.js';

interface AdminUiAssets {
  app: BrowserAsset;
  polaris: BrowserAsset;
}

let built: AdminUiAssets | undefined;

/**
 * Polaris's AppProvider measures the scrollbar with two elements it styles by
 * `setAttribute('style', …)` (constant text; components/AppProvider/AppProvider.js), which a
 * policy without 'unsafe-inline' blocks. These are the hashes of exactly those two texts, allowed
 * by 'unsafe-hashes'; every other style comes from the stylesheet or the CSSOM, which CSP allows.
 * A Polaris upgrade that changes them shows as a CSP console error in test/shopify/embedded-admin.test.ts.
 */
const POLARIS_STYLE_ATTRIBUTE_HASHES = [
  "'sha256-QPy5zGEcgJF2y9uZ6f6kJJM3Yjn5TLSiMk4Yn/FqfxQ='",
  "'sha256-9PXU9ctHkYu+kAmEuAGDoNW6RQM+FRlSaiM8WKwp0BU='",
];

/** Built once per process, when the routes are created: a bundle that does not compile stops the start. */
export function adminUiAssets(): AdminUiAssets {
  built ??= {
    app: bundleBrowserScript(fileURLToPath(new URL('./ui/main.tsx', import.meta.url)), 'admin-ui'),
    // Polaris's own CSS from the npm package, served from our origin (no CDN, pinned by SRI).
    polaris: stylesheetAsset(
      createRequire(import.meta.url).resolve('@shopify/polaris/build/esm/styles.css'),
      'polaris',
    ),
  };
  return built;
}

/**
 * The page's own paths (ui/routing.ts): Shopify reloads the frame on the path it shows, so
 * each is the page too. `/` and `/shopify/app` are routed by app-home.ts and routes.ts.
 */
export const ADMIN_VIEW_PATHS = ['/orders', '/orders/:id', '/settings'] as const;

/** The admin's assets and its other paths. */
export function adminPageRoutes(serveEmbeddedAdmin: (ctx: Context) => Promise<void>): Router {
  const assets = adminUiAssets();
  const byPath = new Map(Object.values(assets).map((asset) => [asset.url, asset]));
  const router = new Router();
  // Other /assets/* are the video pages' (src/videos/routes.ts).
  router.get('/assets/:file', async (ctx, next) => {
    const asset = byPath.get(ctx.path);
    if (!asset) return next();
    sendAsset(ctx, asset);
  });
  for (const path of ADMIN_VIEW_PATHS) router.get(path, (ctx) => serveEmbeddedAdmin(ctx));
  return router;
}

/**
 * Sends the page. `authenticateSessionToken` has already set the shop's frame-ancestors policy on
 * the response; the page's own policy is added to it (one header, both parts).
 */
export function sendAdminPage(ctx: Context, options: { apiKey: string; development: boolean }): void {
  const { app, polaris } = adminUiAssets();
  sendEmbeddedPage(ctx, options, (nonce) => ({
    head: html`<link rel="stylesheet" href="${polaris.url}" integrity="${polaris.integrity}">`,
    body: html`<div id="app"></div>
<script src="${app.url}" integrity="${app.integrity}" nonce="${nonce}"></script>`,
  }));
}

/**
 * A page in the admin's iframe: the shop's frame-ancestors policy (already on the response) with the
 * page's own, and App Bridge as the first script, loaded synchronously (Shopify's requirement), then
 * what `parts` adds. The admin page adds Polaris and the app; the session-token bounce page nothing.
 */
export function sendEmbeddedPage(
  ctx: Context,
  options: { apiKey: string; development: boolean },
  parts: (nonce: string) => { head?: SafeHtml; body?: SafeHtml } = () => ({}),
): void {
  const nonce = randomBytes(16).toString('base64');
  const framing = ctx.response.get('Content-Security-Policy');
  if (!/frame-ancestors /.test(framing)) throw new Error('an embedded page before the shop’s frame-ancestors was set');
  const appBridge = options.development ? DEV_APP_BRIDGE_PATH : APP_BRIDGE_URL;
  ctx.set({
    'Content-Security-Policy': [
      "default-src 'none'",
      // App Bridge comes from Shopify's CDN (and loads its parts from there); our scripts by nonce.
      `script-src 'nonce-${nonce}' https://cdn.shopify.com`,
      `style-src 'self' https://cdn.shopify.com 'unsafe-hashes' ${POLARIS_STYLE_ATTRIBUTE_HASHES.join(' ')}`,
      "img-src 'self' data: https://cdn.shopify.com",
      "font-src 'self' https://cdn.shopify.com",
      "connect-src 'self' https://*.shopify.com",
      // The order page plays the order's video: from this app, or redirected to object storage.
      "media-src 'self' https:",
      "base-uri 'none'",
      "form-action 'self'",
      "object-src 'none'",
      framing.trim().replace(/;$/, ''),
    ].join('; '),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  const { head, body } = parts(nonce);
  ctx.type = 'html';
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="shopify-api-key" content="${options.apiKey}">
<script src="${appBridge}" nonce="${nonce}"></script>
${head ?? html``}
<title>Doorstep</title>
</head>
<body>
${body ?? html``}
</body>
</html>
`.value;
}
