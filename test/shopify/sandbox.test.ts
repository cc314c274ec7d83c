import { describe, expect, it } from 'vitest';
import { DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import { registerShop } from '../../src/shopify/shops.ts';
import { startTestApp, validOrder, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { testAppWithWorkersForFile } from '../support/app-with-workers.ts';
import { sessionToken } from './session-token.ts';

/**
 * `npm start`'s local Shopify: on the built-in development credentials the app mounts the Shopify
 * sandbox at /sandbox/shopify/ and sends the library's Shopify calls there, so an embedded load
 * exchanges tokens and creates a subscription with no Shopify at all.
 */
describe('the Shopify sandbox on development credentials', () => {
  let app: TestApp;
  testAppWithWorkersForFile((started) => ({ app } = started));

  it('shops add → embedded load (token exchange) → subscription approved on the sandbox page → a sent video is one usage record', async () => {
    expect(app.services.config.shopify.development).toBe(true);
    const sandbox = app.services.shopifySandbox!;
    const shop = `demo-${Date.now()}.myshopify.com`;
    const registered = await registerShop(app.services.database.db, shop); // npm run cli -- shops add
    const token = () => sessionToken(shop, DEVELOPMENT_API_KEY, DEVELOPMENT_API_SECRET);
    const billing = await app.request('GET', '/shopify/api/billing', {
      headers: { Authorization: `Bearer ${token()}` },
    });
    expect(billing.status).toBe(200);
    expect(sandbox.grants).toEqual([{ shop, grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange' }]);
    const confirmation: string = billing.body.subscription.confirmation_url;
    expect(confirmation.startsWith(`${app.baseUrl}/sandbox/shopify/billing/approve?`)).toBe(true);
    expect([...sandbox.subscriptions.values()][0]).toMatchObject({ shop, test: true, status: 'PENDING' });

    const page = await fetch(confirmation);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Approve');
    expect(html).toContain('Decline');
    expect(html).toContain('test charge');
    const approved = await fetch(`${app.baseUrl}/sandbox/shopify/billing/approve`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        subscription: new URL(confirmation).searchParams.get('subscription')!,
        decision: 'approve',
      }),
      redirect: 'manual',
    });
    const back = await fetch(approved.headers.get('location')!, { redirect: 'manual' });
    // No Shopify admin to go back to locally: the return lands on the locally opened admin, signed.
    const landing = new URL(back.headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${app.baseUrl}/`);
    expect(landing.searchParams.get('shop')).toBe(shop);
    const reopened = await fetch(landing);
    expect(reopened.status).toBe(200);
    expect(reopened.headers.get('content-type')).toMatch(/^text\/html/);

    const auth = `Basic ${Buffer.from(`${registered.appId}:${registered.apiKey}`).toString('base64')}`;
    const order = await app.request('POST', '/v1/orders', {
      body: { ...validOrder, price: 4000 },
      headers: { Authorization: auth },
    });
    await app.services.orders.markSent(order.body.id, {
      sendId: 'send-1',
      channel: 'email',
      providerMessageId: 'local',
      at: new Date(),
    });
    await eventually(async () => (sandbox.usageRecords.length === 1 ? true : undefined), 15_000, 'the usage record');
    expect(sandbox.usageRecords[0]).toMatchObject({ amount: '2.00', idempotencyKey: order.body.id });
    const after = await app.request('GET', '/shopify/api/billing', { headers: { Authorization: `Bearer ${token()}` } });
    expect(after.body).toMatchObject({
      subscription: { status: 'active' },
      month: { videos_charged: 1, charged_cents: 200 },
    });
  });

  it('refuses a token exchange for a session token not signed with the app secret', async () => {
    const shop = `forged-${Date.now()}.myshopify.com`;
    const forged = sessionToken(shop, DEVELOPMENT_API_KEY, 'not-the-secret');
    const response = await fetch(`${app.baseUrl}/sandbox/shopify/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Shopify-Sandbox-Shop': shop },
      body: JSON.stringify({
        client_id: DEVELOPMENT_API_KEY,
        client_secret: DEVELOPMENT_API_SECRET,
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: forged,
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_subject_token' });
  });
});

describe('with real credentials', () => {
  it('there is no Shopify sandbox', async () => {
    const app = await startTestApp({ env: { SHOPIFY_API_KEY: 'real-key', SHOPIFY_API_SECRET: 'real-secret' } });
    try {
      expect(app.services.shopifySandbox).toBeNull();
      const response = await fetch(`${app.baseUrl}/sandbox/shopify/billing/approve?subscription=1`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('Shopify sandbox');
    } finally {
      await app.close();
    }
  });
});
