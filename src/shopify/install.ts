import { fetchShopName } from './admin-api.ts';
import type { ShopifyServices } from './services.ts';
import { refreshShopLogo } from './shop-logo.ts';
import { findShop, registerShop, type TokenPair } from './shops.ts';

/**
 * Installs (or re-activates) a shop with the token pair Shopify gave us, by OAuth or token
 * exchange. A new shop's account is named after the shop.
 */
export async function installShop(shopify: ShopifyServices, domain: string, tokens: TokenPair) {
  const existing = await findShop(shopify.deps.db, domain);
  let name: string | null = null;
  if (!existing) {
    // Name the new account after the shop; the install must not fail on this nicety.
    try {
      name = await fetchShopName(shopify.library, tokens.accessToken, domain);
    } catch (error) {
      shopify.deps.logger.warn(
        { err: error, shop: domain },
        'could not read the shop name; the account is named after the domain',
      );
    }
  }
  const registered = await registerShop(shopify.deps.db, domain, { name, tokens: shopify.tokens.seal(domain, tokens) });
  // The shop's brand logo for the pages and messages (also read again when the admin's settings load).
  await refreshShopLogo(shopify, registered.shop, { accessToken: tokens.accessToken });
  shopify.deps.logger.info(
    { shop: domain, created: registered.created, appId: registered.appId },
    'shop installed Doorstep',
  );
  return registered;
}
