import { fetchShopPrimaryLocale, fetchShopProfile, type ShopProfile } from '../admin-api.ts';
import { updateAccountSettings } from '../../accounts/settings.ts';
import { emailAddress } from '../../validation.ts';
import type { ShopifyServices } from '../services.ts';
import { isKnownTimeZone } from '../../i18n/dates.ts';
import { findShop, registerShop, type TokenPair } from '../shops.ts';

/**
 * Installs (or re-activates) a shop with the token pair Shopify gave us, by OAuth or token
 * exchange. A new shop's account is named after the shop and speaks its primary locale.
 */
export async function installShop(shopify: ShopifyServices, domain: string, tokens: TokenPair) {
  const existing = await findShop(shopify.deps.db, domain);
  let profile: ShopProfile = { name: null, ianaTimezone: null, contactEmail: null };
  let locale: string | null = null;
  if (!existing) {
    // Two queries, not one: a token without `read_locales` (granted before Doorstep asked for it)
    // fails the locale's, and the name must not go with it. The install fails on neither nicety.
    [profile, locale] = await Promise.all([
      fetchShopProfile(shopify.library, tokens.accessToken, domain).catch((error: unknown) => {
        shopify.deps.logger.warn(
          { err: error, shop: domain },
          'could not read the shop name; the account is named after the domain',
        );
        return { name: null, ianaTimezone: null, contactEmail: null };
      }),
      fetchShopPrimaryLocale(shopify.library, tokens.accessToken, domain).catch((error: unknown) => {
        shopify.deps.logger.warn(
          { err: error, shop: domain },
          'could not read the shop primary locale; its pages and messages are in English',
        );
        return null;
      }),
    ]);
  }
  const registered = await registerShop(shopify.deps.db, domain, {
    name: profile.name,
    timeZone: profile.ianaTimezone && isKnownTimeZone(profile.ianaTimezone) ? profile.ianaTimezone : null,
    locale,
    tokens: shopify.tokens.seal(domain, tokens),
  });
  // A new shop's e-mails answer to its customer-facing address; the merchant can change it in Settings.
  const contact = emailAddress.safeParse(profile.contactEmail);
  if (registered.created && contact.success)
    await updateAccountSettings(
      shopify.deps.db,
      registered.shop.account_id,
      { contact_email: contact.data },
      new Date(),
    );
  shopify.deps.logger.info(
    { shop: domain, created: registered.created, appId: registered.appId },
    'shop installed Doorstep',
  );
  return registered;
}
