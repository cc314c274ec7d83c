import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { LOCALES, supportedLocaleSchema, type Locale } from '../i18n/locale.ts';
import { setAccountLocale } from './locale.ts';
import { BRAND_FONTS, HEX_COLOR, type BrandFont } from '../design/tokens.ts';
import { emailAddress, parseBody } from '../validation.ts';

/**
 * An account's settings (issues 14 and 29): the store's logo, brand and contact address, and whether
 * senders get the "not watched yet" note. API accounts set them with `/v1/account/settings`; Shopify
 * shops in the embedded admin's settings.
 */
export interface AccountSettings {
  /** The store's logo (https; or Doorstep's own URL of an uploaded one, src/accounts/logo.ts), or null. */
  logoUrl: string | null;
  /** Whether the sender of a video not watched three days after it was sent gets a note. */
  notWatchedNote: boolean;
  /** The pages' and e-mails' accent (`#rrggbb`), or null: Doorstep's (src/design/tokens.ts). */
  accentColor: string | null;
  /** The pages' and e-mails' font, of the safe set; null: Doorstep's. */
  font: BrandFont | null;
  /** Where replies to the e-mails go (their Reply-To), or null. */
  contactEmail: string | null;
}

/**
 * Default: on. A gift whose recipient missed the message is the failure the note exists for, and
 * the note goes to the sender, who asked for the gift, not to the recipient; a merchant who does
 * not want it turns it off.
 */
export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  logoUrl: null,
  notWatchedNote: true,
  accentColor: null,
  font: null,
  contactEmail: null,
};

/** Longer than any real logo URL; it goes into every message and page of the store. */
const MAX_LOGO_URL_LENGTH = 2_000;

/**
 * An https URL only: the record and watch pages and the e-mails load it, and an http image would be
 * blocked as mixed content (or leak who opened the mail over plain text).
 */
export const logoUrl = z
  .string({ error: 'must be an https URL, or null' })
  .trim()
  .max(MAX_LOGO_URL_LENGTH, `must be at most ${MAX_LOGO_URL_LENGTH} characters`)
  .pipe(z.url({ protocol: /^https$/, hostname: z.regexes.domain, error: 'must be an https URL, or null' }))
  .meta({ format: 'uri', examples: ['https://cdn.example.com/logo.png'] });

/** What `PUT /v1/account/settings` and the admin's settings accept; absent fields stay as they are. */
export const accountSettingsFields = {
  logo_url: logoUrl.nullable().optional(),
  not_watched_note: z.boolean({ error: 'must be true or false' }).optional(),
  accent_color: z
    .string({ error: 'must be a colour such as "#b4232a", or null' })
    .trim()
    .regex(HEX_COLOR, 'must be a colour such as "#b4232a", or null')
    .transform((value) => value.toLowerCase())
    .meta({ examples: ['#b4232a'] })
    .nullable()
    .optional(),
  font: z
    .enum(BRAND_FONTS, { error: `must be one of ${BRAND_FONTS.join(', ')}, or null` })
    .nullable()
    .optional(),
  contact_email: emailAddress.nullable().optional(),
  // Stored on the account (accounts.locale, src/accounts/locale.ts), not in account_settings: every
  // page and message reads it there; it is a setting to the merchant all the same.
  locale: supportedLocaleSchema
    .meta({ description: `The language of the store's pages and messages: ${LOCALES.join(', ')} (fr-CA reads as fr).` })
    .optional(),
};
export const accountSettingsSchema = z.strictObject(accountSettingsFields);
export type AccountSettingsUpdate = z.output<typeof accountSettingsSchema>;

export function parseAccountSettings(body: unknown): AccountSettingsUpdate {
  return parseBody(accountSettingsSchema, body, 'settings change');
}

/** The answer of `/v1/account/settings` (the OpenAPI document is generated from it). */
export const accountSettingsJsonSchema = z.object({
  logo_url: z
    .url()
    .nullable()
    .meta({ description: "The store's logo (https), or null: pages and messages show the name alone." }),
  not_watched_note: z.boolean().meta({
    description:
      'Whether the sender gets a note when the recipient has not watched three days after sending (default true).',
  }),
  locale: z.enum(LOCALES).meta({
    description:
      "The language of the store's record, watch and thank-you pages and of its e-mails and SMS (a Shopify shop's starts as its primary locale).",
  }),
  accent_color: z
    .string()
    .nullable()
    .meta({ description: "The pages' and e-mails' accent colour (`#rrggbb`), or null: Doorstep's gift red." }),
  font: z
    .enum(BRAND_FONTS)
    .nullable()
    .meta({ description: `The pages' and e-mails' font (${BRAND_FONTS.join(', ')}; system fonts), or null: modern.` }),
  contact_email: z
    .string()
    .nullable()
    .meta({ description: "Where replies to the store's e-mails go (their Reply-To), or null: no Reply-To." }),
});

/** The settings as `/v1/account/settings` answers them. */
export function accountSettingsJson(
  settings: AccountSettings,
  locale: Locale,
): z.output<typeof accountSettingsJsonSchema> {
  return {
    logo_url: settings.logoUrl,
    not_watched_note: settings.notWatchedNote,
    locale,
    accent_color: settings.accentColor,
    font: settings.font,
    contact_email: settings.contactEmail,
  };
}

/** Every message and page of the account reads this (exported so test/db/hot-query-plans.test.ts explains it). */
export function accountSettingsQuery(db: Db, accountId: string) {
  return db
    .selectFrom('account_settings')
    .select(['logo_url', 'not_watched_note', 'accent_color', 'font', 'contact_email'])
    .where('account_id', '=', accountId);
}

export async function findAccountSettings(db: Db, accountId: string): Promise<AccountSettings> {
  const row = await accountSettingsQuery(db, accountId).executeTakeFirst();
  if (!row) return DEFAULT_ACCOUNT_SETTINGS;
  return {
    logoUrl: row.logo_url,
    notWatchedNote: row.not_watched_note,
    accentColor: row.accent_color,
    // A font this build no longer offers reads as the default rather than failing a page.
    font: BRAND_FONTS.includes(row.font as BrandFont) ? (row.font as BrandFont) : null,
    contactEmail: row.contact_email,
  };
}

export async function updateAccountSettings(
  db: Db,
  accountId: string,
  update: AccountSettingsUpdate,
  now: Date,
): Promise<AccountSettings> {
  const changes = {
    ...(update.logo_url !== undefined ? { logo_url: update.logo_url } : {}),
    ...(update.not_watched_note !== undefined ? { not_watched_note: update.not_watched_note } : {}),
    ...(update.accent_color !== undefined ? { accent_color: update.accent_color } : {}),
    ...(update.font !== undefined ? { font: update.font } : {}),
    ...(update.contact_email !== undefined ? { contact_email: update.contact_email } : {}),
  };
  await db.transaction().execute(async (trx) => {
    if (update.locale !== undefined) await setAccountLocale(trx, accountId, update.locale);
    await trx
      .insertInto('account_settings')
      .values({ account_id: accountId, ...changes, updated_at: now })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...changes, updated_at: now }))
      .execute();
  });
  return findAccountSettings(db, accountId);
}

/**
 * Sets the logo pages and messages show, inside the caller's transaction (an upload stores its image
 * in the same one: src/accounts/logo.ts). `url` is not checked here: it is Doorstep's own.
 */
export async function writeLogoUrl(db: Db, accountId: string, url: string | null, now: Date): Promise<void> {
  await db
    .insertInto('account_settings')
    .values({ account_id: accountId, logo_url: url, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ logo_url: url, updated_at: now }))
    .execute();
}
