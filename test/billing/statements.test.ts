import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../src/admin/commands.ts';
import { revenueShareCents, statementPeriod } from '../../src/billing/statements.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

describe('statement math', () => {
  it('takes the share in whole cents, rounded half up, once per statement', () => {
    expect(revenueShareCents(1999, 1500)).toBe(300); // 299.85
    expect(revenueShareCents(1, 5000)).toBe(1); // 0.5 rounds up
    expect(revenueShareCents(1, 4999)).toBe(0);
    expect(revenueShareCents(0, 1500)).toBe(0);
    expect(revenueShareCents(9_007_199_254_740_991, 10_000)).toBe(9_007_199_254_740_991); // exact at the edge
    expect(() => revenueShareCents(10.5, 100)).toThrow(RangeError);
    expect(() => revenueShareCents(100, 10_001)).toThrow(RangeError);
  });

  it('reads a month as a UTC period, December into the next year', () => {
    expect(statementPeriod('2026-12')).toEqual({
      month: '2026-12',
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
    expect(statementPeriod('2028-02').end).toEqual(new Date('2028-03-01T00:00:00Z'));
    expect(statementPeriod('1970-01').start).toEqual(new Date(0));
    expect(statementPeriod('9999-11').end).toEqual(new Date('9999-12-01T00:00:00Z'));
    // Years 0000–0099 once summed 1900–1999 (Date.UTC's two-digit years); 9999-12 ends in year 10000.
    for (const bad of [
      '2026-13',
      '2026-1',
      '2026-00',
      'November',
      '2026-11-01',
      '0026-11',
      '0099-12',
      '1969-12',
      '9999-12',
    ])
      expect(() => statementPeriod(bad), bad).toThrow('The statement month is not valid.');
  });
});

describe('GET /v1/billing/statements/{YYYY-MM}', () => {
  let app: TestApp;
  let store: TestAccount;
  beforeAll(async () => {
    app = await startTestApp({ now: () => new Date('2026-11-20T12:00:00Z') });
    store = await app.createAccount('Share store', { revenueShareBps: 1500 });
  });
  afterAll(async () => {
    await app.close();
  });

  /** An order of this store, sent at `at` (through OrderService.markSent, as the dispatcher does). */
  async function sentOrder(account: TestAccount, price: number | null, at: string): Promise<string> {
    const order = (await account.request('POST', '/v1/orders', { ...validOrder, price })).body;
    await app.services.orders.markSent(order.id, {
      sendId: `send-${order.id}`,
      channel: 'email',
      providerMessageId: 'test',
      at: new Date(at),
    });
    return order.id;
  }

  it('sums the prices of orders sent in the month (UTC), and the share; edges, unpriced and deleted orders', async () => {
    const before = await sentOrder(store, 5000, '2026-10-31T23:59:59Z');
    const first = await sentOrder(store, 1999, '2026-11-01T00:00:00Z');
    const unpriced = await sentOrder(store, null, '2026-11-15T10:00:00Z');
    const deleted = await sentOrder(store, 1001, '2026-11-30T23:59:59Z');
    await store.request('DELETE', `/v1/orders/${deleted}`);
    const after = await sentOrder(store, 7000, '2026-12-01T00:00:00Z');
    // Created in November but never sent: not on any statement.
    await store.request('POST', '/v1/orders', { ...validOrder, price: 9999 });

    const november = await store.request('GET', '/v1/billing/statements/2026-11');
    expect(november.status).toBe(200);
    expect(november.body).toEqual({
      account_id: store.id,
      month: '2026-11',
      period_start: '2026-11-01T00:00:00Z',
      period_end: '2026-12-01T00:00:00Z',
      status: 'open',
      revenue_share_bps: 1500,
      orders_sent: 3,
      orders_without_price: 1,
      total_price_cents: 3000,
      share_cents: 450,
      rounding: expect.stringContaining('rounded half up once per statement'),
      orders_billed_through_shopify: 0,
      exclusions: expect.stringMatching(/^orders billed through Shopify/),
      lines: [
        { order_id: first, price: 1999, sent_at: '2026-11-01T00:00:00Z' },
        { order_id: unpriced, price: null, sent_at: '2026-11-15T10:00:00Z' },
        { order_id: deleted, price: 1001, sent_at: '2026-11-30T23:59:59Z' },
      ],
    });
    const october = (await store.request('GET', '/v1/billing/statements/2026-10')).body;
    expect(october).toMatchObject({ status: 'closed', orders_sent: 1, total_price_cents: 5000, share_cents: 750 });
    expect(october.lines.map((l: { order_id: string }) => l.order_id)).toEqual([before]);
    expect((await store.request('GET', '/v1/billing/statements/2026-12')).body.lines).toEqual([
      { order_id: after, price: 7000, sent_at: '2026-12-01T00:00:00Z' },
    ]);
  });

  it('keeps a closed statement as it was: a sent order’s price changes only while its month runs (billing probe)', async () => {
    const own = await app.createAccount('Closed month store', { revenueShareBps: 1500 });
    const october = await sentOrder(own, 1999, '2026-10-15T10:00:00Z');
    const november = await sentOrder(own, 500, '2026-11-02T10:00:00Z');
    const before = (await own.request('GET', '/v1/billing/statements/2026-10')).body;
    expect(before.status).toBe('closed');

    for (const price of [0, null, 2500]) {
      const refused = await own.request('PUT', `/v1/orders/${october}`, { price });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toBe(
        'The video was sent in 2026-10, whose billing statement is closed: its price can no longer change.',
      );
    }
    expect((await own.request('GET', '/v1/billing/statements/2026-10')).body).toEqual(before);
    // Other details of the order still change; the open month's price too.
    expect((await own.request('PUT', `/v1/orders/${october}`, { video_title: 'For you' })).status).toBe(200);
    expect((await own.request('PUT', `/v1/orders/${november}`, { price: 650 })).status).toBe(200);
    const open = (await own.request('GET', '/v1/billing/statements/2026-11')).body;
    expect(open.lines).toContainEqual({ order_id: november, price: 650, sent_at: '2026-11-02T10:00:00Z' });
  });

  it("shows only the caller's orders; an account off the plan owes nothing", async () => {
    const other = await app.createAccount('No share');
    await sentOrder(other, 2500, '2026-11-03T08:00:00Z');
    expect((await other.request('GET', '/v1/billing/statements/2026-11')).body).toMatchObject({
      revenue_share_bps: null,
      orders_sent: 1,
      total_price_cents: 2500,
      share_cents: 0,
    });
  });

  it('refuses a month that is not YYYY-MM with a 422 that says so, and needs credentials', async () => {
    for (const month of ['2026-13', '0026-11', '9999-12']) {
      const bad = await store.request('GET', `/v1/billing/statements/${month}`);
      expect(bad.status, month).toBe(422);
      expect(bad.body.error.fields).toEqual({
        month: 'must be a month like 2026-11 (YYYY-MM), from 1970-01 to 9999-11',
      });
    }
    expect((await app.request('GET', '/v1/billing/statements/2026-11')).status).toBe(401);
  });

  it('is the same statement through the operator command (by app id)', async () => {
    const commands = adminCommands(app.services.database.db);
    const statement = await commands.run('billing.statement', { account: store.appId, month: '2026-11' });
    expect(statement).toMatchObject({ account_id: store.id, total_price_cents: 3000, share_cents: 450 });
    await expect(commands.run('billing.statement', { account: 'nope', month: '2026-11' })).rejects.toThrow(
      'No account "nope"',
    );
  });
});
