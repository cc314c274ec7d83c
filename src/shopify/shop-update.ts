import { z } from 'zod';
import { renameAccount } from '../accounts/accounts.ts';
import type { Db } from '../db/database.ts';
import { isKnownTimeZone } from '../i18n/dates.ts';
import type { ShopRow } from './shops.ts';

/** What `shop/update` (the Shop resource) says that Doorstep keeps: the store's name and time zone. */
export const shopProfileUpdate = z.object({
  name: z.string().nullish(),
  iana_timezone: z.string().nullish(),
});

/**
 * A shop renamed or moved to another time zone in Shopify (shop/update): its e-mails, SMS and pages
 * are signed with the new name, and its admin's dates are in the new zone. Before, both were kept as
 * they were at install, for ever (Shopify probe). A field that is absent, blank or not one we can use
 * (an unknown zone) changes nothing. Returns the receipt's note.
 */
export async function followShopProfile(
  db: Db,
  shop: ShopRow,
  profile: z.output<typeof shopProfileUpdate>,
): Promise<string | undefined> {
  const followed: string[] = [];
  const name = profile.name?.trim();
  if (name && (await renameAccount(db, shop.account_id, name))) followed.push('name');
  const zone = profile.iana_timezone?.trim();
  if (zone && zone !== shop.iana_timezone && isKnownTimeZone(zone)) {
    await db.updateTable('shops').set({ iana_timezone: zone }).where('domain', '=', shop.domain).execute();
    followed.push('time zone');
  }
  return followed.length > 0 ? `followed the shop's ${followed.join(' and ')}` : undefined;
}
