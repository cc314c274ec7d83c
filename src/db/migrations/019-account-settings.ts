import { sql, type Kysely } from 'kysely';

/**
 * Issue 14, account settings and the "not watched yet" note (docs/api.md "Account settings",
 * docs/notifications.md "The not-watched note"):
 * - `account_settings` (the accounts module's): one row per account that changed a setting or whose
 *   Shopify logo is known. No row = the defaults (no logo, the note on). `logo_url` is what the
 *   merchant set; `shopify_logo_url` is what Shopify said the shop's brand logo is, kept apart so a
 *   reinstall or a settings load can refresh it without touching the merchant's choice.
 * - `orders.sender_phone`: the sender's mobile number (E.164), when known: the note goes by SMS then.
 * - `sender_nudges` (the notifications module's): one row per order whose recipient's video was sent,
 *   due three days later; the tick decides each once (`decided_at`, `outcome`), so an order is
 *   looked at once, whatever the decision, and the due query reads only undecided rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('logo_url', 'text')
    .addColumn('shopify_logo_url', 'text')
    .addColumn('not_watched_note', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('orders').addColumn('sender_phone', 'text').execute();
  await db.schema
    .createTable('sender_nudges')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_at', 'timestamptz')
    .addColumn('outcome', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index sender_nudges_due on sender_nudges (due_at) where decided_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sender_nudges').execute();
  await db.schema.alterTable('orders').dropColumn('sender_phone').execute();
  await db.schema.dropTable('account_settings').execute();
}
