import type { Context } from 'koa';
import { sendEmbeddedPage } from '../admin/page.ts';
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

/** The bounce page: App Bridge alone (Shopify's CDN, or the development stand-in), in the shop's admin. */
export function sendBouncePage(ctx: Context, options: { apiKey: string; development: boolean; shop: string }): void {
  allowShopAdminToFrame(ctx, options.shop);
  sendEmbeddedPage(ctx, options);
}
