import { z } from 'zod';
import { createAccount, findAccount, rotateApiKey } from '../accounts/accounts.ts';
import { accountSettingsFields, updateAccountSettings, type AccountSettingsUpdate } from '../accounts/settings.ts';
import type { Db } from '../db/database.ts';
import type { ShopsTable } from '../db/schema.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { isCarrierCode } from './orders/carrier-names.ts';
import { GIFT_PACKAGE_MODES, SEND_METHODS } from '../vocabulary.ts';
import type { Selectable } from 'kysely';

export type ShopRow = Selectable<ShopsTable>;

/** `{name}.myshopify.com`, lower-cased; anything else is refused (it becomes a host name we call). */
export const shopDomain = z
  .string({ error: 'must be a shop domain like my-store.myshopify.com' })
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/, 'must be a shop domain like my-store.myshopify.com');

/**
 * The shop a merchant typed into the front page's Install form, read as people type it: the handle
 * alone (`my-store`), the domain in any case, the store's address with a scheme or path
 * (`https://my-store.myshopify.com/admin`), or the admin's (`admin.shopify.com/store/my-store`).
 * Null when it names no `*.myshopify.com` shop (a custom domain, a typo): the form says so (probe
 * finding: a handle or a pasted URL got a raw JSON 400).
 */
export function shopDomainFromTyped(typed: string): string | null {
  const text = typed
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '');
  const admin = /^admin\.shopify\.com\/store\/([^/?#]+)/.exec(text);
  const host = admin ? `${admin[1]}.myshopify.com` : text.split(/[/?#]/)[0]!;
  const parsed = shopDomain.safeParse(host.includes('.') ? host : `${host}.myshopify.com`);
  return parsed.success ? parsed.data : null;
}

export function parseShopDomain(value: unknown): string {
  const parsed = shopDomain.safeParse(value);
  if (!parsed.success)
    throw new ValidationError('The shop is not valid.', { shop: parsed.error.issues[0]?.message ?? 'is not valid' });
  return parsed.data;
}

/** An offline token pair as Shopify returns it (expiring offline tokens: access 1 h, refresh 90 days). */
export interface TokenPair {
  accessToken: string;
  accessTokenExpiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
  scopes: string | null;
}

/** A token as stored in `shops`: sealed by stored-tokens.ts, never a plain token. */
export type StoredToken = string & { readonly __storedToken: unique symbol };

/** A pair ready for `shops`: tokens sealed for this shop (stored-tokens.ts `sealTokenPair`). */
export interface StoredTokenPair extends Omit<TokenPair, 'accessToken' | 'refreshToken'> {
  accessToken: StoredToken;
  refreshToken: StoredToken | null;
}

export interface RegisteredShop {
  shop: ShopRow;
  created: boolean;
  /** Only when a new account was created (or its key rotated): shown once. */
  apiKey: string | null;
  appId: string;
}

export async function findShop(db: Db, domain: string): Promise<ShopRow | undefined> {
  return db.selectFrom('shops').selectAll().where('domain', '=', domain).executeTakeFirst();
}

/**
 * The storefront of the shop an account is (`https://{shop}.myshopify.com`, which Shopify sends on to
 * the shop's own domain), for the sender's thank-you page to link to; null for an API account or a
 * shop that uninstalled.
 */
export async function shopStorefrontUrl(db: Db, accountId: string): Promise<string | null> {
  const shop = await db
    .selectFrom('shops')
    .select('domain')
    .where('account_id', '=', accountId)
    .where('active', '=', true)
    .executeTakeFirst();
  return shop ? `https://${shop.domain}` : null;
}

export async function getShop(db: Db, domain: string): Promise<ShopRow> {
  const shop = await findShop(db, domain);
  if (!shop) throw new NotFoundError(`The shop ${domain} has not installed Doorstep.`);
  return shop;
}

/**
 * Installing (OAuth, token exchange, or `shops add`) creates the shop's Doorstep account, or
 * re-activates the shop and its existing account after an uninstall. Tokens, when given, are stored
 * as one pair.
 */
export async function registerShop(
  db: Db,
  domain: string,
  options: {
    name?: string | null;
    /** A new shop's primary locale (accounts' `localeSchema` reads it); null or absent: `en`. */
    locale?: string | null;
    /** A new shop's IANA time zone (shop-time-zone.ts); null or absent: read when the admin first asks. */
    timeZone?: string | null;
    tokens?: StoredTokenPair | null;
    rotateKey?: boolean;
    now?: Date;
  } = {},
): Promise<RegisteredShop> {
  const now = options.now ?? new Date();
  const tokenColumns = options.tokens ? tokenValues(options.tokens) : {};
  const existing = await findShop(db, domain);
  if (existing) {
    const shop = await db
      .updateTable('shops')
      .set({
        active: true,
        uninstalled_at: null,
        ...(existing.active ? {} : { installed_at: now }),
        updated_at: now,
        ...tokenColumns,
      })
      .where('domain', '=', domain)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (options.rotateKey) {
      const rotated = await rotateApiKey(db, shop.account_id);
      return { shop, created: false, apiKey: rotated.apiKey, appId: rotated.appId };
    }
    const account = await findAccount(db, shop.account_id);
    if (!account) throw new Error(`Shop ${domain} names account ${shop.account_id}, which does not exist.`);
    return { shop, created: false, apiKey: null, appId: account.appId };
  }
  const { account, apiKey } = await createAccount(db, {
    name: options.name?.trim() || domain,
    ...(options.locale ? { locale: options.locale } : {}),
  });
  const inserted = await db
    .insertInto('shops')
    .values({
      domain,
      account_id: account.id,
      installed_at: now,
      updated_at: now,
      iana_timezone: options.timeZone ?? null,
      ...tokenColumns,
    })
    .onConflict((oc) => oc.column('domain').doNothing())
    .returningAll()
    .executeTakeFirst();
  // A concurrent install of the same shop won: use its row (our account stays unused).
  if (!inserted) return registerShop(db, domain, { ...options, tokens: options.tokens ?? null });
  return { shop: inserted, created: true, apiKey, appId: account.appId };
}

function tokenValues(tokens: StoredTokenPair) {
  return {
    access_token: tokens.accessToken,
    access_token_expires_at: tokens.accessTokenExpiresAt,
    refresh_token: tokens.refreshToken,
    refresh_token_expires_at: tokens.refreshTokenExpiresAt,
    scopes: tokens.scopes,
    token_refresh_claimed_until: null,
  };
}

/** Stores a refreshed pair in one statement: readers see the old pair or the new one, never a mix. */
export async function storeTokens(db: Db, domain: string, tokens: StoredTokenPair, now: Date): Promise<void> {
  await db
    .updateTable('shops')
    .set({ ...tokenValues(tokens), updated_at: now })
    .where('domain', '=', domain)
    .execute();
}

/** app/uninstalled: the shop is inactive and its tokens are useless; already-paid video orders still send. */
export async function markUninstalled(db: Db, domain: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('shops')
    .set({
      active: false,
      uninstalled_at: now,
      access_token: null,
      access_token_expires_at: null,
      refresh_token: null,
      refresh_token_expires_at: null,
      updated_at: now,
    })
    .where('domain', '=', domain)
    .where('active', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

const ALIAS_WORDS = 'each carrier name must map to ups, fedex or usps';

/** Up to 500 Shopify ids, each as text (64-bit: a JSON number could lose digits). */
function shopifyIdList(words: string) {
  return z
    .array(z.string({ error: words }).regex(/^\d{1,20}$/, words), { error: words })
    .max(500, 'must be at most 500 ids')
    .optional();
}

export const shopSettingsSchema = z.strictObject({
  fallback_delivered: z.boolean({ error: 'must be true or false' }).optional(),
  // Every refusal in the merchant's words: zod's own ("Invalid key in record", "expected string,
  // received number") named no field a merchant knows (billing probe).
  carrier_aliases: z
    .record(z.string().trim().min(1).max(100), z.string({ error: ALIAS_WORDS }).trim().toLowerCase(), {
      error: 'must map carrier names of 1 to 100 characters to ups, fedex or usps',
    })
    .refine((aliases) => Object.values(aliases).every(isCarrierCode), ALIAS_WORDS)
    .optional(),
  video_product_ids: shopifyIdList('must be a list of Shopify product ids, like ["8123456789"]'),
  video_variant_ids: shopifyIdList('must be a list of Shopify variant ids, like ["44123456789"]'),
  gift_packages: z.enum(GIFT_PACKAGE_MODES, { error: `must be one of ${GIFT_PACKAGE_MODES.join(', ')}` }).optional(),
  default_send_method: z.enum(SEND_METHODS, { error: `must be one of ${SEND_METHODS.join(', ')}` }).optional(),
  // The account's settings (issue 14), stored by the accounts module: the logo the merchant sets
  // over the one Shopify gives, the not-watched note, and the language of pages and messages.
  ...accountSettingsFields,
});
export type ShopSettingsUpdate = z.output<typeof shopSettingsSchema>;

export function shopSettingsJson(shop: ShopRow) {
  return {
    shop: shop.domain,
    active: shop.active,
    fallback_delivered: shop.fallback_delivered,
    carrier_aliases: shop.carrier_aliases,
    video_product_ids: shop.video_product_ids,
    video_variant_ids: shop.video_variant_ids,
    gift_packages: shop.gift_packages,
    default_send_method: shop.default_send_method,
  };
}

export async function updateShopSettings(
  db: Db,
  domain: string,
  update: ShopSettingsUpdate,
  now: Date,
): Promise<ShopRow> {
  const shop = await db
    .updateTable('shops')
    .set({
      ...(update.fallback_delivered !== undefined ? { fallback_delivered: update.fallback_delivered } : {}),
      ...(update.carrier_aliases !== undefined ? { carrier_aliases: JSON.stringify(update.carrier_aliases) } : {}),
      ...(update.video_product_ids !== undefined
        ? { video_product_ids: JSON.stringify(update.video_product_ids) }
        : {}),
      ...(update.video_variant_ids !== undefined
        ? { video_variant_ids: JSON.stringify(update.video_variant_ids) }
        : {}),
      ...(update.gift_packages !== undefined ? { gift_packages: update.gift_packages } : {}),
      ...(update.default_send_method !== undefined ? { default_send_method: update.default_send_method } : {}),
      updated_at: now,
    })
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirst();
  if (!shop) throw new NotFoundError(`The shop ${domain} has not installed Doorstep.`);
  // The account's own settings (accounts/settings.ts) ride in the same body: handed over as they came.
  const accountUpdate = Object.fromEntries(
    Object.keys(accountSettingsFields)
      .map((key) => [key, update[key as keyof typeof accountSettingsFields]] as const)
      .filter(([, value]) => value !== undefined),
  ) as AccountSettingsUpdate;
  if (Object.keys(accountUpdate).length > 0) await updateAccountSettings(db, shop.account_id, accountUpdate, now);
  return shop;
}

/**
 * Claims the right to refresh this shop's token for `leaseMs`. Refresh tokens rotate: two
 * concurrent refreshes with the same refresh token would leave one process with a dead pair, so
 * exactly one process refreshes while the others wait for its result. Returns the refresh token as
 * stored (sealed), for the caller to open and to name in `forgetRefreshToken`.
 */
export async function claimTokenRefresh(
  db: Db,
  domain: string,
  now: Date,
  leaseMs: number,
  refreshBefore: Date,
): Promise<string | null> {
  const row = await db
    .updateTable('shops')
    .set({ token_refresh_claimed_until: new Date(now.getTime() + leaseMs) })
    .where('domain', '=', domain)
    .where('refresh_token', 'is not', null)
    // Someone may have refreshed between our read and this claim: only a token still due is refreshed.
    .where('access_token_expires_at', '<', refreshBefore)
    .where((eb) => eb.or([eb('token_refresh_claimed_until', 'is', null), eb('token_refresh_claimed_until', '<', now)]))
    .returning('refresh_token')
    .executeTakeFirst();
  return row?.refresh_token ?? null;
}

export async function releaseTokenRefresh(db: Db, domain: string): Promise<void> {
  await db.updateTable('shops').set({ token_refresh_claimed_until: null }).where('domain', '=', domain).execute();
}

/**
 * Shopify refused this refresh token: drop it (and the lease) so nobody tries it again; the access
 * token stays until it expires. Only the pair it belongs to: a newer pair stored meanwhile stays.
 */
export async function forgetRefreshToken(db: Db, domain: string, storedRefreshToken: string): Promise<void> {
  await db
    .updateTable('shops')
    .set({ refresh_token: null, refresh_token_expires_at: null, token_refresh_claimed_until: null })
    .where('domain', '=', domain)
    .where('refresh_token', '=', storedRefreshToken)
    .execute();
}
