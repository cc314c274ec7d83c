import type { Db } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { DEFAULT_LOCALE, localeSchema, toLocale, type Locale } from '../i18n/locale.ts';

export { localeSchema, type Locale };

/**
 * The language of an account's pages and messages: a Shopify shop's primary locale (read at install),
 * an API account's setting; `en` for an account that is gone, as its store name falls back too.
 */
export async function findAccountLocale(db: Db, accountId: string): Promise<Locale> {
  const row = await db.selectFrom('accounts').select('locale').where('id', '=', accountId).executeTakeFirst();
  return row ? toLocale(row.locale) : DEFAULT_LOCALE;
}

/** Stores the account's language: a tag as `localeSchema` reads it (`fr-CA` → `fr`, unknown → `en`). */
export async function setAccountLocale(db: Db, accountId: string, tag: string): Promise<Locale> {
  const locale = localeSchema.parse(tag);
  const updated = await db
    .updateTable('accounts')
    .set({ locale })
    .where('id', '=', accountId)
    .returning('locale')
    .executeTakeFirst();
  if (!updated) throw new NotFoundError('No such account.');
  return locale;
}
