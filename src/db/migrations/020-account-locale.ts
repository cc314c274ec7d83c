import { sql, type Kysely } from 'kysely';

/**
 * Issue 14, languages: the language an account's pages and messages speak (`en`, `fr`, `es`; see
 * src/i18n/locale.ts). A Shopify shop's is its primary locale, read at install; an API account's is a
 * setting. Not constrained to the supported list here: adding a language is a catalogue change, not a
 * migration, and the accounts module writes only what `localeSchema` gives.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('locale', 'text', (column) => column.notNull().defaultTo(sql`'en'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('locale').execute();
}
