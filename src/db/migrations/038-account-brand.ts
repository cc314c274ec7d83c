import type { Kysely } from 'kysely';

/**
 * The store's brand and contact (issue 29), the accounts module's `account_settings`:
 * - `accent_color` (`#rrggbb`) and `font` (one of src/design/tokens.ts FONT_STACKS): what the
 *   record, watch and thank-you pages and the e-mails are drawn in; null is Doorstep's default.
 * - `contact_email`: where a recipient's or sender's reply to an e-mail goes (its Reply-To); a
 *   Shopify shop's starts as the shop's customer-facing contact address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('account_settings')
    .addColumn('accent_color', 'text')
    .addColumn('font', 'text')
    .addColumn('contact_email', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('account_settings')
    .dropColumn('contact_email')
    .dropColumn('font')
    .dropColumn('accent_color')
    .execute();
}
