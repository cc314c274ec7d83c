import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

// Every carrier call spends a request budget every account shares (USPS: 60 an hour), so a PUT asks
// the carrier only about a shipment it really sets (shipment probe, finding 1).

describe('with the carrier sandbox answering validations', () => {
  let app: TestApp;
  let storeA: TestAccount;
  let storeB: TestAccount;

  beforeAll(async () => {
    app = await startTestApp({ env: { USPS_QUOTA: '3/minute' } });
    storeA = await app.createAccount('Store A');
    storeB = await app.createAccount('Store B');
  });
  afterAll(() => app.close());

  async function trackCalls(carrier: CarrierCode): Promise<number> {
    const response = await fetch(`${app.baseUrl}/sandbox/carriers/${carrier}/stats`);
    return ((await response.json()) as { track_calls: number }).track_calls;
  }

  async function newOrder(store: TestAccount, shipment: { carrier: string; tracking_number: string }) {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body as { id: string };
    const set = await store.request('PUT', `/v1/orders/${order.id}`, shipment);
    expect(set.status).toBe(200);
    return set;
  }

  it("answers a re-sent stored pair from the order's timeline without asking the carrier, so no-op PUTs cannot spend another account's budget", async () => {
    const known = '9400111899223817240102';
    const unknown = '9400111899223817240119';
    const another = '9400111899223817240126';
    for (const number of [known, another])
      await fetch(`${app.baseUrl}/sandbox/carriers/usps/packages/${number}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'pre_transit' }),
      });

    const knownSet = await newOrder(storeA, { carrier: 'usps', tracking_number: known });
    expect(knownSet.body.warning).toBeUndefined();
    const unknownSet = await newOrder(storeA, { carrier: 'usps', tracking_number: unknown });
    expect(unknownSet.body.warning.message).toMatch(/is not yet in USPS's system/);
    expect(await trackCalls('usps')).toBe(2);

    const { warning: _, ...knownOrder } = knownSet.body;
    const { warning, ...unknownOrder } = unknownSet.body;
    for (const body of [
      { carrier: 'usps', tracking_number: known },
      { carrier: 'USPS', tracking_number: ` ${known} ` },
      { tracking_number: known },
      { carrier: 'usps' },
    ]) {
      const again = await storeA.request('PUT', `/v1/orders/${knownOrder.id}`, body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(knownOrder);
    }
    const unknownAgain = await storeA.request('PUT', `/v1/orders/${unknownOrder.id}`, {
      carrier: 'usps',
      tracking_number: unknown,
    });
    expect(unknownAgain.body).toEqual({ warning, ...unknownOrder });
    const timeline = (await storeA.request('GET', `/v1/orders/${unknownOrder.id}/events`)).body.data;
    // Nothing recorded again (tracking's own look at the new number, `tracking.status`, may be there).
    const recorded = timeline
      .map((entry: { type: string }) => entry.type)
      .filter((type: string) => type !== 'tracking.status');
    expect(recorded).toEqual(['order.created', 'shipment.set', 'tracking.warning']);

    // A client re-sending the shipment on every sync: store B's new number still gets USPS's answer.
    const resends = await Promise.all(
      Array.from({ length: 20 }, () =>
        storeA.request('PUT', `/v1/orders/${knownOrder.id}`, { carrier: 'usps', tracking_number: known }),
      ),
    );
    expect(resends.map((response) => response.status)).toEqual(resends.map(() => 200));
    const other = await newOrder(storeB, { carrier: 'usps', tracking_number: another });
    expect(other.body.warning).toBeUndefined();
    expect(await trackCalls('usps')).toBe(3);
  });

  it('refuses a shipment change on a delivered order (409) and an incomplete or unsendable update (422) without asking the carrier', async () => {
    const delivered = (await newOrder(storeA, { carrier: 'ups', tracking_number: '1Z5R89390357567127' })).body;
    expect((await storeA.request('PUT', `/v1/orders/${delivered.id}`, { delivered: 1 })).status).toBe(200);
    const open = (await newOrder(storeA, { carrier: 'ups', tracking_number: '1Z5R89390357567127' })).body;
    const before = await trackCalls('ups');

    const started = Date.now();
    for (const number of ['1Z5R89390357567134', '1Z5R89390357567141', '1Z5R89390357567158']) {
      const refused = await storeA.request('PUT', `/v1/orders/${delivered.id}`, {
        carrier: 'ups',
        tracking_number: number,
      });
      expect(refused.status).toBe(409);
    }
    for (const [order, body] of [
      [delivered, { carrier: null, tracking_number: '1Z5R89390357567165' }],
      [open, { carrier: null, tracking_number: '1Z5R89390357567165' }],
      [open, { tracking_number: '1Z5R89390357567172', send_trigger: 'date' }],
    ] as const) {
      const refused = await storeA.request('PUT', `/v1/orders/${order.id}`, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
    expect(await trackCalls('ups')).toBe(before);
    // Refused at once: no wait on a carrier before the answer (the validation limit is 2.5 s).
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await storeA.request('GET', `/v1/orders/${delivered.id}`)).body.tracking_number).toBe('1Z5R89390357567127');
  });
});

describe('when the order changes while the carrier is asked', () => {
  let app: TestApp;
  let store: TestAccount;
  const asked: string[] = [];
  let whileAsking: (() => Promise<unknown>) | null = null;

  beforeAll(async () => {
    app = await startTestApp({
      // The format check stands in for the carrier; the first question lets another request in.
      verifier: {
        async verify(carrier, trackingNumber) {
          asked.push(`${carrier} ${trackingNumber}`);
          const meanwhile = whileAsking;
          whileAsking = null;
          await meanwhile?.();
          return formatVerifier.verify(carrier, trackingNumber);
        },
      },
    });
    store = await app.createAccount();
  });
  afterAll(() => app.close());

  it('asks again about the pair the locked plan sets, and never sets a pair without its answer', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body as { id: string };
    await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: '1Z5R89390357567127' });
    asked.length = 0;
    // While UPS is asked about the corrected number, another request moves the order to FedEx.
    whileAsking = () =>
      store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'fedex', tracking_number: '986456462891' });

    const corrected = await store.request('PUT', `/v1/orders/${order.id}`, { tracking_number: '1Z5R89390357567134' });

    expect(asked).toEqual(['ups 1Z5R89390357567134', 'fedex 986456462891', 'fedex 1Z5R89390357567134']);
    expect(corrected.status).toBe(200);
    expect(corrected.body).toMatchObject({ carrier: 'fedex', tracking_number: '1Z5R89390357567134' });
    // The warning is FedEx's answer about the number set, not UPS's about the number asked first.
    expect(corrected.body.warning.message).toMatch(/FedEx/);
    const timeline = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    expect(timeline.slice(-2)).toMatchObject([
      { type: 'shipment.set', data: { carrier: 'fedex', tracking_number: '1Z5R89390357567134' } },
      { type: 'tracking.warning', data: { message: corrected.body.warning.message } },
    ]);
  });
});
