import { isKnownTimeZone } from '../../i18n/dates.ts';
import { fetchShopProfile } from '../admin-api.ts';
import type { ShopifyServices } from '../services.ts';
import type { ShopRow } from '../shops.ts';

/** What the admin's dates fall back to when Shopify cannot say: the API's own zone, named as such. */
export const FALLBACK_TIME_ZONE = 'UTC';

/**
 * The shop's time zone, for the embedded admin's dates: the one stored at install, else (a shop
 * installed before Doorstep kept it) read from Shopify once and stored. Never throws: a page must not
 * fail on a nicety; it shows UTC, labelled, until Shopify answers.
 */
export async function shopTimeZone(shopify: ShopifyServices, shop: ShopRow): Promise<string> {
  if (shop.iana_timezone) return shop.iana_timezone;
  try {
    const token = await shopify.tokens.accessToken(shop.domain);
    const { ianaTimezone } = await fetchShopProfile(shopify.library, token, shop.domain);
    if (!ianaTimezone || !isKnownTimeZone(ianaTimezone)) return FALLBACK_TIME_ZONE;
    await shopify.deps.db
      .updateTable('shops')
      .set({ iana_timezone: ianaTimezone })
      .where('domain', '=', shop.domain)
      .execute();
    return ianaTimezone;
  } catch (error) {
    shopify.deps.logger.warn(
      { err: error, shop: shop.domain },
      "could not read the shop's time zone; dates show in UTC",
    );
    return FALLBACK_TIME_ZONE;
  }
}
