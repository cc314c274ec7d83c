import { findAccountLocale } from '../../accounts/locale.ts';
import { accountSettingsJson, findAccountSettings } from '../../accounts/settings.ts';
import type { Db } from '../../db/database.ts';
import { formatTimestamp } from '../../orders/serializer.ts';
import { carrierForCompanyName, normalizeCompanyName } from '../orders/carrier-names.ts';
import { shopSettingsJson, type ShopRow } from '../shops.ts';

export interface UnmappedCompany {
  name: string;
  fulfillments: number;
  last_seen_at: string | null;
}

/**
 * Tracking companies this shop's fulfillments used whose name maps to none of our carriers, built
 * in or by the shop's own alias — what the merchant may want to map. Spellings that differ only in
 * case, dots or spaces are one company, shown as most recently spelt. Most fulfillments first.
 */
export function unmappedTrackingCompanies(
  used: ReadonlyArray<{ company: string; fulfillments: number; lastSeenAt: Date | null }>,
  aliases: Record<string, string>,
): UnmappedCompany[] {
  const byName = new Map<string, { name: string; fulfillments: number; lastSeenAt: Date | null }>();
  for (const row of used) {
    if (carrierForCompanyName(row.company, aliases) !== null) continue;
    const key = normalizeCompanyName(row.company);
    if (!key) continue;
    const seen = byName.get(key);
    if (!seen) {
      byName.set(key, { name: row.company.trim(), fulfillments: row.fulfillments, lastSeenAt: row.lastSeenAt });
      continue;
    }
    const newer = (row.lastSeenAt?.getTime() ?? 0) > (seen.lastSeenAt?.getTime() ?? 0);
    byName.set(key, {
      name: newer ? row.company.trim() : seen.name,
      fulfillments: seen.fulfillments + row.fulfillments,
      lastSeenAt: newer ? row.lastSeenAt : seen.lastSeenAt,
    });
  }
  return [...byName.values()]
    .sort((a, b) => b.fulfillments - a.fulfillments || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((company) => ({
      name: company.name,
      fulfillments: company.fulfillments,
      last_seen_at: company.lastSeenAt ? formatTimestamp(company.lastSeenAt) : null,
    }));
}

async function trackingCompaniesUsed(db: Db, shop: string) {
  const rows = await db
    .selectFrom('shopify_fulfillments')
    .select((eb) => [
      'tracking_company',
      eb.fn.countAll<string>().as('fulfillments'),
      eb.fn.max(eb.fn.coalesce('shopify_updated_at', 'updated_at')).as('last_seen_at'),
    ])
    .where('shop', '=', shop)
    .where('tracking_company', 'is not', null)
    .groupBy('tracking_company')
    .execute();
  return rows.map((row) => ({
    company: row.tracking_company!,
    fulfillments: Number(row.fulfillments),
    lastSeenAt: row.last_seen_at ? new Date(row.last_seen_at) : null,
  }));
}

/**
 * GET/PUT /shopify/api/settings: the shop's settings, the account's (logo, not-watched note, language) and the
 * companies still unmapped. `logo_url` is the store's logo: a URL the merchant gave, or Doorstep's own
 * URL of the logo they uploaded (PUT /shopify/api/settings/logo), or null.
 */
export async function adminSettingsJson(db: Db, shop: ShopRow) {
  const [account, locale] = await Promise.all([
    findAccountSettings(db, shop.account_id),
    findAccountLocale(db, shop.account_id),
  ]);
  return {
    ...shopSettingsJson(shop),
    ...accountSettingsJson(account, locale),
    unmapped_tracking_companies: unmappedTrackingCompanies(
      await trackingCompaniesUsed(db, shop.domain),
      shop.carrier_aliases,
    ),
  };
}
