import { sql, type Kysely } from 'kysely';

/**
 * The tracking numbers of a Shopify package its carrier reported delivered
 * (`shopify_fulfillments.carrier_delivered_numbers`, normalised). A gift in several boxes is tracked one
 * box at a time: a box the carrier delivers while others are on their way is kept here, and tracking
 * moves to the next (src/shopify/orders/packages.ts). Before, that delivery sent the video early.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shopify_fulfillments')
    .addColumn('carrier_delivered_numbers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shopify_fulfillments').dropColumn('carrier_delivered_numbers').execute();
}
