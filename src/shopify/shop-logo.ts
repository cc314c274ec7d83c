import { recordShopifyLogo } from '../accounts/settings.ts';
import { offlineSession } from './admin-api.ts';
import type { ShopifyLibrary } from './library.ts';
import type { ShopifyServices } from './services.ts';
import type { ShopRow } from './shops.ts';

/**
 * The shop's brand logo (Shopify admin → Settings → Brand), or null when it has none: the
 * Storefront API's `Shop.brand`, asked with the app's offline token as its private Storefront token
 * (the library's Storefront client; Shopify's own `unauthenticated.storefront(shop)` does the same).
 * Not the Admin API: its Branding types are not supported in a stable version (2026-07).
 */
export async function fetchShopLogoUrl(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const client = new shopify.clients.Storefront({ session: offlineSession(domain, accessToken) });
  const response = await client.request<{
    shop: { brand: { logo: { image: { url: string | null } | null } | null } | null };
  }>('query DoorstepShopLogo { shop { brand { logo { image { url } } } } }');
  return response.data?.shop.brand?.logo?.image?.url ?? null;
}

/**
 * Reads the shop's logo from Shopify and stores it in the account's settings, beside (never over)
 * a logo the merchant set. Run at install and whenever the admin's settings load, so a logo changed
 * in Shopify shows up the next time the merchant opens Doorstep. Never throws: a page or an install
 * must not fail on this; what was stored before stays.
 */
export async function refreshShopLogo(
  shopify: ShopifyServices,
  shop: Pick<ShopRow, 'domain' | 'account_id'>,
  options: { accessToken?: string } = {},
): Promise<void> {
  try {
    const token = options.accessToken ?? (await shopify.tokens.accessToken(shop.domain));
    const url = await fetchShopLogoUrl(shopify.library, token, shop.domain);
    await recordShopifyLogo(shopify.deps.db, shop.account_id, url, (shopify.deps.now ?? (() => new Date()))());
  } catch (error) {
    // Once per shop and process at warn (an API version without the field fails on every settings
    // load, and the merchant's own logo setting is the way out); afterwards at debug.
    const first = !warnedShops.has(shop.domain);
    warnedShops.add(shop.domain);
    shopify.deps.logger[first ? 'warn' : 'debug'](
      { err: error, shop: shop.domain },
      "could not read the shop's logo from Shopify",
    );
  }
}

const warnedShops = new Set<string>();
