import type { Kysely } from 'kysely';

/**
 * Free signals (issue 30, 2; docs/tracking.md "Free signals"). `trackings.observed_estimated_delivery_at`:
 * Shopify's estimate, kept apart from the carrier's so a poll without one does not wipe it and a
 * carrier's own always wins (the schedule reads the carrier's, else this). On `shopify_fulfillments`,
 * the newest fulfillment event (status, when it happened, its estimate): an event that comes before
 * its fulfillment, or before tracking starts, is applied once the package is tracked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').addColumn('observed_estimated_delivery_at', 'timestamptz').execute();
  await db.schema
    .alterTable('shopify_fulfillments')
    .addColumn('event_status', 'text')
    .addColumn('event_happened_at', 'timestamptz')
    .addColumn('event_estimated_delivery_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shopify_fulfillments')
    .dropColumn('event_status')
    .dropColumn('event_happened_at')
    .dropColumn('event_estimated_delivery_at')
    .execute();
  await db.schema.alterTable('trackings').dropColumn('observed_estimated_delivery_at').execute();
}
