import { RequestedTokenType } from '@shopify/shopify-api';
import type { Context, Middleware } from 'koa';
import { HttpError } from '../../http/errors.ts';
import { shopifyUnavailable } from '../admin-api.ts';
import { installShop } from './install.ts';
import type { ShopifyServices } from '../services.ts';
import { findShop, shopDomain, type ShopRow } from '../shops.ts';
import { needsTokenExchange, sessionTokens } from './tokens.ts';

/**
 * How the embedded admin proves which shop it speaks for: a Shopify session token (HS256 with our
 * secret, audience = our key), passed by App Bridge as `?id_token=` on the page load and as
 * `Authorization: Bearer` on every API call the page makes (`shopify.idToken()`).
 */

/**
 * Shopify requires embedded apps to let only the shop's own admin frame them (clickjacking), on
 * every response: https://shopify.dev/docs/apps/build/security/app-server/set-up-iframe-protection
 */
export function allowShopAdminToFrame(ctx: Context, domain: string): void {
  ctx.set('Content-Security-Policy', `frame-ancestors https://${domain} https://admin.shopify.com;`);
}

/**
 * Verifies a session token and makes sure we hold a working offline token for its shop: token
 * exchange (expiring offline token) when we do not, or when ours can no longer be refreshed. This is
 * how an embedded app installs without a redirect. Sets the frame-ancestors policy for the shop and
 * returns the shop's row (read once: every admin API call comes through here).
 */
export async function authenticateSessionToken(
  shopify: ShopifyServices,
  ctx: Context,
  sessionToken: string,
): Promise<ShopRow> {
  if (!sessionToken)
    throw new HttpError(401, 'unauthorized', 'Open Doorstep from the Shopify admin (a session token is required).');
  let payload;
  try {
    payload = await shopify.library.session.decodeSessionToken(sessionToken);
  } catch {
    throw new HttpError(401, 'unauthorized', 'The Shopify session token is not valid.');
  }
  const domain = shopOfDestination(payload.dest);
  allowShopAdminToFrame(ctx, domain);
  ctx.state.shopDomain = domain;
  const existing = await findShop(shopify.deps.db, domain);
  // Also when the refresh token expired or was refused: this load is the merchant's only chance to
  // give us a new pair, and billing jobs waiting on the shop (ShopNotConnectedError) then go on.
  // And when its stored token cannot be read (written under a key this deployment no longer has).
  if (
    existing &&
    !needsTokenExchange(existing, shopify.deps.now?.() ?? new Date()) &&
    shopify.tokens.readable(existing)
  )
    return existing;
  const { session } = await shopify.library.auth
    .tokenExchange({
      shop: domain,
      sessionToken,
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: true,
    })
    .catch((error: unknown) => {
      throw shopifyUnavailable(error, 'to exchange the session token for an access token');
    });
  return (await installShop(shopify, domain, sessionTokens(session))).shop;
}

/**
 * The shop a verified session token is for: its `dest`, `https://{shop}.myshopify.com`. A signed token
 * whose `dest` is not that — no scheme, another host — is refused as any bad token is (401), not
 * answered 500 or 422 (merchant probe: "Invalid URL" was the only error line in its log).
 */
function shopOfDestination(dest: string): string {
  const url = URL.parse(dest);
  const shop = url && url.protocol === 'https:' ? shopDomain.safeParse(url.hostname) : null;
  if (!shop?.success) throw new HttpError(401, 'unauthorized', 'The Shopify session token is not for a Shopify store.');
  return shop.data;
}

/** The `Authorization: Bearer <session token>` of an API call from the embedded admin. */
export function bearerToken(ctx: Context): string {
  const match = /^Bearer (.+)$/.exec(ctx.get('Authorization'));
  return match?.[1] ?? '';
}

/** Koa middleware for the embedded admin's API: a valid session token, or 401. Sets `ctx.state.shop`. */
export function sessionTokenAuth(shopify: ShopifyServices): Middleware {
  return async (ctx, next) => {
    ctx.state.shop = await authenticateSessionToken(shopify, ctx, bearerToken(ctx));
    await next();
  };
}

/** The shop `sessionTokenAuth` authenticated. */
export function currentShop(ctx: Context): ShopRow {
  const shop = ctx.state.shop as ShopRow | undefined;
  if (!shop) throw new Error('currentShop() outside sessionTokenAuth');
  return shop;
}
