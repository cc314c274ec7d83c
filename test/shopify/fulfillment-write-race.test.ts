import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, fulfillmentPayload } from '../../src/shopify/dev/webhook-payloads.ts';
import { shopifyFulfillment } from '../../src/shopify/orders/payloads.ts';
import { getShop } from '../../src/shopify/shops.ts';
import { startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

/**
 * A fulfillment's first webhooks can be processed at the same moment (fulfillments/create, /update and
 * fulfillment_events/create, by several workers). The first write of its row must not fail on the
 * primary key when two of them both find no row: the loser's transaction is run again and updates.
 * On PostgreSQL (CI's second pass) the writes really run at once; on PGlite they queue, and the
 * outcome must be the same.
 */
let app: ShopifyTestApp;
const SHOP = 'race-store.myshopify.com';

beforeAll(async () => {
  app = await startShopifyTestApp();
  await app.addShop(SHOP);
});
afterAll(() => app?.close());

function version(id: number, orderId: number, updatedAt: string, shipmentStatus: string | null) {
  return shopifyFulfillment.parse(
    fulfillmentPayload({ id, orderId, lineItemIds: [1], updatedAt, createdAt: '2026-11-20T10:00:00Z', shipmentStatus }),
  );
}

describe('the first write of a fulfillment, raced', () => {
  it('stores the newest version and the delivery, whichever webhook wins, with no error', async () => {
    const shop = await getShop(app.services.database.db, SHOP);
    const sync = app.shopify.sync;
    for (let round = 0; round < 10; round++) {
      const id = fakeShopifyId();
      const orderId = fakeShopifyId();
      await Promise.all([
        sync.recordFulfillment(shop, version(id, orderId, '2026-11-20T10:00:00Z', null)),
        sync.recordFulfillment(shop, version(id, orderId, '2026-11-21T10:00:00Z', 'in_transit')),
        sync.recordFulfillmentEvent(shop, {
          fulfillment_id: String(id),
          order_id: String(orderId),
          status: 'delivered',
          happened_at: '2026-11-22T10:00:00Z',
        }),
      ]);
      const row = await app.services.database.db
        .selectFrom('shopify_fulfillments')
        .select(['shopify_updated_at', 'delivered_at'])
        .where('shop', '=', SHOP)
        .where('fulfillment_id', '=', String(id))
        .executeTakeFirstOrThrow();
      expect(row.shopify_updated_at?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
      expect(row.delivered_at).not.toBeNull();
    }
  });
});
