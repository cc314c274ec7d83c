import type { Kysely } from 'kysely';

/**
 * The store's own logo, uploaded by the merchant (issue 28), written by the accounts module:
 * - `account_logos`: the current logo of an account, as Doorstep re-encoded it (a PNG of at most
 *   600×200), kept in the database because it is small and read rarely (pages and e-mails load it by
 *   URL, cached for ever under its hash). One row per account; a new upload replaces it.
 * - `account_settings.shopify_logo_url` goes: the Storefront API's `shop.brand` needs unauthenticated
 *   scopes Doorstep does not ask for, so the read failed on real shops; the merchant's upload (or a
 *   logo URL) is the one way a store's logo is set.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_logos')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('png', 'bytea', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('account_settings').dropColumn('shopify_logo_url').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('account_settings').addColumn('shopify_logo_url', 'text').execute();
  await db.schema.dropTable('account_logos').execute();
}
