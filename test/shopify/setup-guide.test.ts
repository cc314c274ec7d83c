import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { productTemplateWithBlock } from '../../src/shopify/dev/sandbox/theme-editor.ts';
import { signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { updateShopSettings } from '../../src/shopify/shops.ts';
import type { TestApp } from '../support/test-app.ts';
import { outboxMail } from '../support/outbox.ts';
import { eventually } from '../support/workers.ts';
import { testAppWithWorkersForFile } from '../support/app-with-workers.ts';
import { sessionToken } from './session-token.ts';

/**
 * Issue 28: Home's setup guide, each step ticked from the shop's real state in the development
 * sandbox (its theme, its settings), and "Send a test gift to yourself" to the outbox.
 */
let app: TestApp;
testAppWithWorkersForFile((started) => ({ app } = started));

const adminApi = async (shop: string, method: 'GET' | 'POST', route: string, body?: unknown) =>
  app.request(method, `/shopify/api${route}`, {
    headers: { Authorization: `Bearer ${sessionToken(shop, DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET)}` },
    ...(body !== undefined ? { body } : {}),
  });

const stepsOf = async (shop: string) => {
  const setup = await adminApi(shop, 'GET', '/setup');
  expect(setup.status).toBe(200);
  return Object.fromEntries(
    (setup.body.steps as Array<{ id: string; done: boolean; action: { url: string } | null }>).map((step) => [
      step.id,
      step,
    ]),
  );
};

/** The test gift's order once the dispatcher recorded its send (the e-mail reaches the outbox a moment before). */
const sentTestGift = (orderId: string) =>
  eventually(
    async () => {
      const row = await app.services.database.db
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
      return row.sent_at === null ? undefined : row;
    },
    20_000,
    'the test gift’s sent_at',
  );

describe('the setup guide', () => {
  it('shows four steps, ticked from the shop’s theme and settings, with the theme editor deep link', async () => {
    const shop = `setup-${Date.now()}.myshopify.com`;
    const handle = shop.split('.')[0]!;
    const first = await adminApi(shop, 'GET', '/setup'); // the first embedded call installs the shop
    expect(first.body.steps.map((step: { id: string }) => step.id)).toEqual([
      'theme_block',
      'video_product',
      'plan',
      'test_gift',
    ]);
    expect(first.body.completed).toBe(0);
    // Installed by that call: the shop's customer-facing address is its e-mails' Reply-To.
    const settings = await adminApi(shop, 'GET', '/settings');
    expect(settings.body.contact_email).toBe(`hello@${handle}.example.com`);
    const link = new URL(first.body.steps[0].action.url);
    expect(`${link.origin}${link.pathname}`).toBe(
      `${app.baseUrl}/sandbox/shopify/store/${handle}/admin/themes/current/editor`,
    );
    expect(Object.fromEntries(link.searchParams)).toEqual({
      template: 'product',
      addAppBlockId: 'doorstep-development-theme-extension/video-gift-message',
      target: 'mainSection',
    });

    // The theme editor's Save (the sandbox's) puts the block in the product template: the step ticks.
    const saved = await fetch(link, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ block: link.searchParams.get('addAppBlockId')! }),
      redirect: 'manual',
    });
    expect(saved.status).toBe(302);
    expect((await stepsOf(shop)).theme_block!.done).toBe(true);
    // Removed again (or disabled), it un-ticks: the state is the theme's, not a remembered click.
    const sandbox = app.services.shopifySandbox!;
    sandbox.productTemplates.set(shop, productTemplateWithBlock(null));
    expect((await stepsOf(shop)).theme_block!.done).toBe(false);

    await updateShopSettings(
      app.services.database.db,
      shop,
      { video_product_ids: ['gid://shopify/Product/8000000001'] },
      new Date(),
    );
    expect((await stepsOf(shop)).video_product!.done).toBe(true);
    expect((await stepsOf(shop)).plan!.done).toBe(false);

    // Approved on the sandbox's approval page and back through the return URL: billing's plan is active.
    const billing = await adminApi(shop, 'GET', '/billing');
    const confirmation = new URL(billing.body.subscription.confirmation_url as string);
    const approved = await fetch(new URL('approve', confirmation), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ subscription: confirmation.searchParams.get('subscription')!, decision: 'approve' }),
      redirect: 'manual',
    });
    expect((await fetch(approved.headers.get('location')!, { redirect: 'manual' })).status).toBe(302);
    const steps = await stepsOf(shop);
    expect(steps.plan!.done).toBe(true);
    expect(
      Object.values(steps)
        .filter((step) => step.done)
        .map((step) => step.id),
    ).toEqual(['video_product', 'plan']);
  });

  it('“Create it for me” makes the Video message product in the shop, published, at the price given, and chooses it; once, however often pressed', async () => {
    const shop = `product-${Date.now()}.myshopify.com`;
    expect((await stepsOf(shop)).video_product!.done).toBe(false);

    for (const [price, field] of [
      ['0', 'price'],
      ['5,000.00', 'price'],
      ['abc', 'price'],
    ] as const) {
      const refused = await adminApi(shop, 'POST', '/video-product', { price });
      expect(refused.status, price).toBe(422);
      expect(Object.keys(refused.body.error.fields), price).toEqual([field]);
    }
    expect((await adminApi(shop, 'POST', '/video-product', {})).status).toBe(422);

    // A decimal comma, as stores in many countries write it (storefront probe: refused).
    const made = await adminApi(shop, 'POST', '/video-product', { price: '7,50' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ title: 'Video message', price: '7.50' });
    const sandbox = app.services.shopifySandbox!;
    const product = sandbox.products.get(Number(made.body.product_id))!;
    expect(product).toMatchObject({
      shop,
      handle: 'doorstep-video-message',
      status: 'ACTIVE',
      price: '7.50',
      requiresShipping: false,
    });
    // Published to the Online Store: the storefront block adds it to the cart there.
    expect(product.publications).toHaveLength(1);
    const shopRow = await app.services.database.db
      .selectFrom('shops')
      .select('video_product_ids')
      .where('domain', '=', shop)
      .executeTakeFirstOrThrow();
    expect(shopRow.video_product_ids).toEqual([made.body.product_id]);
    expect((await stepsOf(shop)).video_product!.done).toBe(true);

    // Pressed again (a double click, a retry after a lost answer): the same product, its new price.
    const again = await adminApi(shop, 'POST', '/video-product', { price: '9' });
    expect(again.body.product_id).toBe(made.body.product_id);
    expect([...sandbox.products.values()].filter((p) => p.shop === shop)).toHaveLength(1);
    expect(sandbox.products.get(Number(made.body.product_id))!.price).toBe('9');
  });

  it('sends a test gift to the store’s e-mail: a sample video, the recipient’s e-mail in the outbox, never billed', async () => {
    const shop = `gift-${Date.now()}.myshopify.com`;
    const email = `owner@${shop.split('.')[0]}.example.com`;
    expect((await stepsOf(shop)).test_gift!.done).toBe(false);
    const sent = await adminApi(shop, 'POST', '/test-gift');
    expect(sent.status).toBe(201);
    expect(sent.body.message).toContain(email);
    expect((await stepsOf(shop)).test_gift!.done).toBe(true);

    const message = await outboxMail(
      app.services.config.dataDir,
      (mail) => mail.includes(`To: ${email}`) && mail.includes('/watch/'),
      'the test gift’s e-mail in the outbox',
    );
    expect(message).toBeDefined();
    // The e-mail reaches the outbox a moment before the dispatcher records the send: wait for both.
    const order = await sentTestGift(sent.body.order_id);
    expect(order).toMatchObject({ price: null, video_title: 'Test gift', recipient_email: email });
    // Marked as a test in the admin, and not one of the shop's figures on Home.
    const list = await adminApi(shop, 'GET', '/orders');
    expect(list.body.data.map((row: { id: string; test_gift: boolean }) => [row.id, row.test_gift])).toEqual([
      [order.id, true],
    ]);
    expect((await adminApi(shop, 'GET', `/orders/${order.id}`)).body.test_gift).toBe(true);
    expect((await adminApi(shop, 'GET', '/home')).body.counts).toMatchObject({ video_orders: 0, sent: 0 });
    // No price: billing records that it owes nothing, and nothing reaches Shopify.
    const charges = await app.services.database.db
      .selectFrom('shopify_usage_charges')
      .select(['amount_cents', 'status'])
      .where('order_id', '=', order.id)
      .execute();
    expect(charges.every((charge) => Number(charge.amount_cents) === 0 && charge.status !== 'pending')).toBe(true);
    expect(app.services.shopifySandbox!.usageRecords.filter((record) => record.shop === shop)).toEqual([]);
  });

  it('renews an access token Shopify refuses, instead of sending it for ever (upgrade probe)', async () => {
    const shop = `refused-${Date.now()}.myshopify.com`;
    await stepsOf(shop); // installs the shop: a token pair from the sandbox
    // Shopify forgets the access token (revoked; the probe restarted the sandbox): a 401.
    app.services.shopifySandbox!.accessTokens.clear();
    const refused = await adminApi(shop, 'POST', '/video-product', { price: '5.00' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(/^Shopify refused Doorstep's access token/);
    const row = await app.services.database.db
      .selectFrom('shops')
      .select('access_token_expires_at')
      .where('domain', '=', shop)
      .executeTakeFirstOrThrow();
    expect(row.access_token_expires_at).toEqual(new Date(0));
    // The next use refreshes it (the refresh token still holds), and the call goes through.
    expect((await adminApi(shop, 'POST', '/video-product', { price: '5.00' })).status).toBe(201);
  });

  it('sends one test gift for a double press; another once it has gone (billing probe: three presses, three gifts)', async () => {
    const shop = `twice-${Date.now()}.myshopify.com`;
    await stepsOf(shop); // installs the shop
    const presses = await Promise.all([adminApi(shop, 'POST', '/test-gift'), adminApi(shop, 'POST', '/test-gift')]);
    expect(presses.map((press) => press.status).sort()).toEqual([201, 409]);
    const refused = presses.find((press) => press.status === 409)!;
    expect(refused.body.error.message).toMatch(/^A test gift is already on its way to owner@twice-\d+\.example\.com/);
    const first = presses.find((press) => press.status === 201)!;
    await sentTestGift(first.body.order_id);
    expect((await adminApi(shop, 'POST', '/test-gift')).status).toBe(201);
  });

  it('goes with the shop on shop/redact: the order erased, its watch page gone, and a reinstall starts the step again', async () => {
    const shop = `redacted-${Date.now()}.myshopify.com`;
    const sent = await adminApi(shop, 'POST', '/test-gift');
    expect(sent.status).toBe(201);
    const db = app.services.database.db;
    const gift = await sentTestGift(sent.body.order_id);
    expect((await app.request('GET', `/watch/${gift.uuid}`)).status).toBe(200);

    const post = async (topic: string, payload: unknown) => {
      const webhook = signedWebhook(DEVELOPMENT_API_SECRET, shop, topic, payload);
      const answer = await fetch(`${app.baseUrl}/shopify/webhooks`, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
      });
      expect(answer.status).toBe(200);
      return eventually(
        async () => {
          const receipt = await db
            .selectFrom('webhook_receipts')
            .select(['status', 'note'])
            .where('webhook_id', '=', webhook.webhookId)
            .executeTakeFirst();
          return receipt?.status === 'processed' ? receipt : undefined;
        },
        20_000,
        `${topic} processed`,
      );
    };
    await post('app/uninstalled', { id: 1 });
    const redacted = await post('shop/redact', { shop_id: 1, shop_domain: shop });
    expect(redacted.note).toBe("erased 1 video order(s) and the shop's data");

    const erased = await db.selectFrom('orders').selectAll().where('id', '=', gift.id).executeTakeFirstOrThrow();
    expect(erased).toMatchObject({ name: '[erased]', recipient_email: null });
    expect(erased.deleted_at).not.toBeNull();
    expect((await app.request('GET', `/watch/${gift.uuid}`)).status).toBe(404);
    expect(await db.selectFrom('shopify_test_gifts').select('order_id').where('shop', '=', shop).execute()).toEqual([]);
    // Installed again (the first embedded call installs it): a new start, the test gift not sent.
    expect((await stepsOf(shop)).test_gift!.done).toBe(false);
  });
});
