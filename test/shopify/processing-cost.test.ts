import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeShopifyId, orderPayload, signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { commitsIn, openLoggedPglite, StatementLog, transactionsIn } from '../support/statement-log.ts';
import { SECRET, startShopifyTestApp, type ShopifyTestApp } from './harness.ts';

/**
 * Issue 11, "webhook processing that keeps pace": what processing one signed `orders/create` (one
 * video line item, a new order) costs, counted on the real embedded PostgreSQL (every statement it
 * receives, `begin` and `commit` included). The list is in docs/scaling.md ("Processing one
 * orders/create"); a new statement on this path fails here first. Counts do not depend on the
 * machine's load, unlike the bench's rates.
 */
/**
 * 12, the cancelled-first check's lock and look (docs/scaling.md #8–9), and the account's language for
 * the default video title of a line without one (#4).
 */
const STATEMENTS = 15;
const TRANSACTIONS = 1;
/** The explicit transaction, and the receipt marked processed after the fulfillment check. */
const COMMITS = 2;
/** The receipt, the order's links, the shop, its fulfillments (none), the receipt's outcome. */
const REPLAY_STATEMENTS = 5;

const log = new StatementLog();
let app: ShopifyTestApp;
beforeAll(async () => {
  app = await startShopifyTestApp({ database: await openLoggedPglite(log) });
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;

async function received(shop: string) {
  const shopifyOrderId = fakeShopifyId();
  const signed = signedWebhook(
    SECRET,
    shop,
    'orders/create',
    orderPayload({
      id: shopifyOrderId,
      lines: [{ id: fakeShopifyId(), recipientName: 'Bob', recipientEmail: 'bob@example.com' }],
    }),
  );
  const response = await fetch(`${app.baseUrl}/shopify/webhooks`, {
    method: 'POST',
    headers: signed.headers,
    body: signed.body,
  });
  expect(response.status).toBe(200);
  return { webhookId: signed.webhookId, shopifyOrderId: String(shopifyOrderId) };
}

/** Everything processing writes for one Shopify order, to compare before and after a replay. */
async function footprint(shop: string, shopifyOrderId: string) {
  const links = await db()
    .selectFrom('shopify_order_links')
    .select(['order_id', 'notice'])
    .where('shop', '=', shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .execute();
  const orderIds = links.map((link) => link.order_id);
  if (orderIds.length === 0) return { links, orders: [], timeline: [], sends: [], outbox: [] };
  return {
    links,
    orders: await db()
      .selectFrom('orders')
      .select(['id', 'status', 'updated_at'])
      .where('id', 'in', orderIds)
      .execute(),
    timeline: await db()
      .selectFrom('order_events')
      .select(['order_id', 'type', 'source'])
      .where('order_id', 'in', orderIds)
      .orderBy('id')
      .execute(),
    sends: await db()
      .selectFrom('sends')
      .select(['order_id', 'kind', 'channel', 'status'])
      .where('order_id', 'in', orderIds)
      .orderBy('kind')
      .execute(),
    outbox: await db().selectFrom('order_outbox').select(['seq']).where('order_id', 'in', orderIds).execute(),
  };
}

describe('processing one orders/create', () => {
  it(`costs at most ${STATEMENTS} statements, ${TRANSACTIONS} transaction and ${COMMITS} commits, and does all of it`, async () => {
    const shop = `cost-${Date.now()}.myshopify.com`;
    await app.addShop(shop);
    // A first order warms what a process warms once (nothing of this path is cached per shop).
    const warm = await received(shop);
    await app.shopify.processing.process(warm.webhookId);

    const { webhookId, shopifyOrderId } = await received(shop);
    const statements = await log.during(() => app.shopify.processing.process(webhookId));
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(STATEMENTS);
    expect(transactionsIn(statements)).toBeLessThanOrEqual(TRANSACTIONS);
    expect(commitsIn(statements)).toBeLessThanOrEqual(COMMITS);

    // The work is all there: the order, its link, its timeline, the sender's record link queued,
    // no event left waiting for a subscriber, and the receipt processed with its attempt counted.
    const after = await footprint(shop, shopifyOrderId);
    expect(after.links).toEqual([{ order_id: expect.stringMatching(/^ord_/), notice: null }]);
    expect(after.orders).toMatchObject([{ status: 'created' }]);
    expect(after.timeline).toEqual([{ order_id: after.links[0]!.order_id, type: 'order.created', source: 'shopify' }]);
    expect(after.sends).toEqual([
      { order_id: after.links[0]!.order_id, kind: 'sender_record_link', channel: 'email', status: 'pending' },
    ]);
    expect(after.outbox).toEqual([]);
    expect(
      await db()
        .selectFrom('webhook_receipts')
        .select(['status', 'attempts', 'error'])
        .where('webhook_id', '=', webhookId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: 'processed', attempts: 1, error: null });

    // A replay (as an orders/updated of an unchanged order) reads what it needs once, writes only
    // its receipt, and changes nothing; a redelivery is skipped.
    const replay = await log.during(() => app.shopify.processing.process(webhookId, { replay: true }));
    expect(replay.length, replay.join('\n')).toBeLessThanOrEqual(REPLAY_STATEMENTS);
    expect(commitsIn(replay)).toBe(1);
    expect(await app.shopify.processing.process(webhookId)).toEqual({ status: 'skipped', note: 'already processed' });
    expect(await footprint(shop, shopifyOrderId)).toEqual(after);

    // The sender's e-mail goes once.
    await app.services.dispatcher.dispatchDue(25);
    await app.services.dispatcher.dispatchDue(25);
    const sent = await footprint(shop, shopifyOrderId);
    expect(sent.sends).toEqual([
      { order_id: after.links[0]!.order_id, kind: 'sender_record_link', channel: 'email', status: 'sent' },
    ]);
  });
});
