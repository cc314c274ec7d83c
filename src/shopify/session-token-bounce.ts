import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { html } from '../videos/html.ts';
import { APP_BRIDGE_URL, DEV_APP_BRIDGE_PATH } from './app-bridge-standin.ts';
import { allowShopAdminToFrame } from './session-auth.ts';

/** Where an embedded load without a fresh session token goes for one (the path Shopify's templates use). */
export const SESSION_TOKEN_BOUNCE_PATH = '/auth/session-token';

/**
 * An embedded load (`embedded=1`, in the admin's iframe) whose session token is missing or has
 * expired — a reload, a bookmarked address, a tab left open past the token's minute. Shopify's app
 * templates answer it with the session-token bounce page, and so do we: the page loads App Bridge,
 * which fetches a fresh token and reloads the address in `shopify-reload` with it. Not OAuth inside
 * the iframe (Shopify's pages refuse to be framed), and not a 401 JSON page a merchant cannot act on.
 */
export function bounceForSessionToken(ctx: Context, shop: string): void {
  const reload = new URL(ctx.originalUrl, 'http://app.invalid');
  reload.searchParams.delete('id_token');
  const query = new URLSearchParams({ shop, embedded: '1', 'shopify-reload': `${reload.pathname}${reload.search}` });
  const host = typeof ctx.query.host === 'string' ? ctx.query.host : undefined;
  if (host) query.set('host', host);
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(`${SESSION_TOKEN_BOUNCE_PATH}?${query}`);
}

/** True when a session token's payload says it has expired (its signature is checked elsewhere, or not at all: this only decides to bounce). */
export function sessionTokenExpired(token: string, now: Date): boolean {
  const payload = token.split('.')[1];
  if (!payload) return false;
  try {
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' && exp * 1000 <= now.getTime();
  } catch {
    return false;
  }
}

/** The bounce page: App Bridge alone (Shopify's CDN, or the development stand-in), first and synchronous. */
export function sendBouncePage(ctx: Context, options: { apiKey: string; development: boolean; shop: string }): void {
  const nonce = randomBytes(16).toString('base64');
  allowShopAdminToFrame(ctx, options.shop);
  const framing = ctx.response.get('Content-Security-Policy');
  ctx.set({
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}' https://cdn.shopify.com`,
      "connect-src 'self' https://*.shopify.com",
      "base-uri 'none'",
      framing.trim().replace(/;$/, ''),
    ].join('; '),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  ctx.type = 'html';
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="shopify-api-key" content="${options.apiKey}">
<script src="${options.development ? DEV_APP_BRIDGE_PATH : APP_BRIDGE_URL}" nonce="${nonce}"></script>
<title>Doorstep</title>
</head>
<body></body>
</html>
`.value;
}
