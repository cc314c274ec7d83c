import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createFedexAivSubscriptions,
  fedexSignature,
  FEDEX_AIV_LIFETIME_MS,
  FEDEX_SIGNATURE_HEADER,
} from '../../src/carriers/clients/fedex-aiv.ts';
import { FAILED_RETRY_MS, REFUSED_RETRY_MS, RENEW_BEFORE_MS } from '../../src/tracking/push-subscriptions.ts';
import type { TestAccount, TestApp } from '../support/test-app.ts';
import { expectRefusedPush, pushStory, pushSubscriptionsAt, pushTestAppForFile } from '../support/push-story.ts';
import { eventually } from '../support/workers.ts';

/**
 * FedEx Advanced Integrated Visibility (tracking-number subscription) end to end on real
 * PGlite/PostgreSQL, Redis and HTTP: tracking a FedEx number submits a Track Number Association job
 * to the sandboxed FedEx, the claim tick asks for the job's status until it is COMPLETED and reads
 * its report, and the sandbox then posts each new scan, signed with `fdx-signature`, to our
 * destination URL. Polling is slowed to once a minute, so a delivery seen within seconds can only
 * have come by push.
 */

let app: TestApp;
let store: TestAccount;

pushTestAppForFile((started) => ({ app, store } = started));
beforeEach(() => {
  aiv().holdJobs = false;
  aiv().failNextJobs = 0;
});

const sandbox = () => app.services.carrierSandbox!.state;
const { shippedOrder, tracking, subscribed, storedEvents, deliveredByPush } = pushStory(
  () => app,
  () => store,
  'fedex',
);
const aiv = () => sandbox().push.fedex;
const webhook = () => `${app.baseUrl}/carriers/fedex/webhook`;
const token = () => app.services.push.fedex!.securityToken;

const jobsFor = (trackingNumber: string) =>
  aiv()
    .jobs()
    .filter((job) => job.trackingNumbers.includes(trackingNumber));

/** The order's row once the number's first job has reached `status` and the row waits on no job any more. */
const afterFirstJob = (orderId: string, trackingNumber: string, status: string, what: string) =>
  eventually(
    async () => {
      const row = await tracking(orderId);
      return jobsFor(trackingNumber)[0]?.status === status && row.push_job_id === null ? row : undefined;
    },
    15_000,
    what,
  );

function post(raw: string, headers: Record<string, string>) {
  return fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
}

/** A "Detailed tracking response" as the sandbox sends it: the Track API's envelope and TrackResult. */
/** An hour ago, as FedEx writes it (local time with its offset, here -05:00): after the order was placed. */
const anHourAgoInNewYork = () => `${new Date(Date.now() - 3_600_000 - 5 * 3_600_000).toISOString().slice(0, 19)}-05:00`;

const deliveredEvent = (trackingNumber: string, deliveredAt = anHourAgoInNewYork()) =>
  JSON.stringify({
    transactionId: 'test',
    output: {
      completeTrackResults: [
        {
          trackingNumber,
          trackResults: [
            {
              trackingNumberInfo: { trackingNumber },
              latestStatusDetail: { code: 'DL', derivedCode: 'DL', description: 'Delivered' },
              dateAndTimes: [{ type: 'ACTUAL_DELIVERY', dateTime: deliveredAt }],
              scanEvents: [{ date: deliveredAt, eventType: 'DL', derivedStatusCode: 'DL' }],
            },
          ],
        },
      ],
    },
  });

describe('FedEx AIV push', () => {
  it('associates a tracked number by an asynchronous job: not subscribed while the job runs, subscribed once its report says so', async () => {
    aiv().holdJobs = true;
    const number = '794644790138';
    const order = await shippedOrder(number);
    const waiting = await eventually(
      async () => {
        const row = await tracking(order.id);
        return row.push_job_id && (jobsFor(number)[0]?.statusChecks ?? 0) >= 2 ? row : undefined;
      },
      15_000,
      'the job submitted and asked about twice',
    );
    // Asked about on each tick, still IN_PROGRESS: not subscribed, polled as any unsubscribed package.
    const [job] = jobsFor(number);
    expect(job).toMatchObject({ action: 'ADD', status: 'IN_PROGRESS', accountNumber: '000000000' });
    expect(waiting.push_job_id).toBe(job!.jobId);
    expect(waiting.push_subscribed_at).toBeNull();
    expect(waiting.push_until).toBeNull();
    expect(waiting.next_poll_at).not.toBeNull();
    expect(aiv().isSubscribed(number)).toBe(false);

    aiv().holdJobs = false;
    await subscribed(order.id);
    const row = await tracking(order.id);
    expect(jobsFor(number)).toHaveLength(1);
    expect(job!.status).toBe('COMPLETED');
    expect(job!.results).toEqual([{ trackingNumber: number, status: 'SUCCESS', message: 'Associated.' }]);
    expect(row.push_job_id).toBeNull();
    const subscribedAt = new Date(row.push_subscribed_at!).getTime();
    expect(new Date(row.push_until!).getTime() - subscribedAt).toBe(FEDEX_AIV_LIFETIME_MS);
    expect(new Date(row.push_renew_at!).getTime()).toBe(subscribedAt + FEDEX_AIV_LIFETIME_MS - RENEW_BEFORE_MS);
    expect(aiv().isSubscribed(number)).toBe(true);
  });

  it('a signed push delivers the order within seconds (polling is once a minute)', async () => {
    const number = '797843158299';
    const { order, deliveredAt, scriptedAt } = await deliveredByPush(number);
    expect(Date.now() - scriptedAt).toBeLessThan(15_000);
    expect((await tracking(order.id)).last_pushed_at).not.toBeNull();
    // The event's outcome is written after it is applied: on a fast PostgreSQL the delivery can be read first.
    const outcomes = await eventually(
      async () => {
        const stored = (await storedEvents(number)).map((e) => e.outcome);
        return stored.every((outcome) => outcome !== null) ? stored : undefined;
      },
      5_000,
      "the push event's outcome",
    );
    expect(outcomes).toEqual(['applied']);
    // The sandbox records its post's answer once it has it; we may have applied the event first.
    const delivery = await eventually(
      async () =>
        sandbox().push.deliveries.find(
          (d) => d.carrier === 'fedex' && d.trackingNumber === number && d.status !== undefined,
        ),
      5_000,
      "the sandbox to record its post's answer",
    );
    expect(delivery.status).toBe(200);
    const delivered = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(delivered.delivered_at).toBe(deliveredAt.toISOString().replace('.000Z', 'Z'));
  });

  it('refuses a missing or wrong fdx-signature with 401 JSON and changes nothing; a good one is stored once', async () => {
    const number = '799531274483';
    const order = await shippedOrder(number);
    const before = await tracking(order.id);
    const raw = deliveredEvent(number);
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['empty', { [FEDEX_SIGNATURE_HEADER]: '' }],
      ['wrong token', { [FEDEX_SIGNATURE_HEADER]: fedexSignature('Wrong-token-0123456789abcdef', raw) }],
      ['body changed', { [FEDEX_SIGNATURE_HEADER]: fedexSignature(token(), raw.replace('DL', 'OD')) }],
      ['not base64', { [FEDEX_SIGNATURE_HEADER]: 'not a signature' }],
    ];
    for (const [name, headers] of cases) await expectRefusedPush(await post(raw, headers), name);
    expect(await storedEvents(number)).toHaveLength(0);
    const after = await tracking(order.id);
    expect(after.status).toBe(before.status);
    expect(after.last_pushed_at).toBeNull();

    const good = await post(raw, { [FEDEX_SIGNATURE_HEADER]: fedexSignature(token(), raw) });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({});
    // The same digest hex-encoded (one FedEx page's pseudo-code, F2): accepted; the resend is stored once.
    const hex = createHmac('sha256', token()).update(raw).digest('hex');
    expect((await post(raw, { [FEDEX_SIGNATURE_HEADER]: hex })).status).toBe(200);
    expect(await storedEvents(number)).toHaveLength(1);
    await eventually(
      async () => ((await tracking(order.id)).status === 'delivered' ? true : undefined),
      15_000,
      'the signed delivery applied',
    );
  });

  it('submits a FAILED job again after the retry delay, and polling covers the package meanwhile', async () => {
    aiv().failNextJobs = 1;
    const number = '790535312317';
    const order = await shippedOrder(number);
    const failed = await afterFirstJob(order.id, number, 'FAILED', 'the failed job given up');
    expect(failed.push_until).toBeNull();
    expect(failed.next_poll_at).not.toBeNull();
    const retryAt = new Date(failed.push_renew_at!).getTime();
    expect(retryAt - Date.now()).toBeGreaterThan(FAILED_RETRY_MS - 60_000);
    expect(retryAt - Date.now()).toBeLessThanOrEqual(FAILED_RETRY_MS);
    expect(jobsFor(number)).toHaveLength(1);

    // Past the retry delay: a new job, asked about on the next tick, completes.
    const later = new Date(retryAt + 1_000);
    const retrier = pushSubscriptionsAt(app, 'fedex', later);
    expect(await retrier.subscribeDue('fedex')).toBe(0);
    expect(jobsFor(number)).toHaveLength(2);
    expect((await tracking(order.id)).push_job_id).toBe(jobsFor(number)[1]!.jobId);
    expect(await retrier.subscribeDue('fedex')).toBeGreaterThanOrEqual(1);
    const row = await tracking(order.id);
    expect(row.push_job_id).toBeNull();
    expect(new Date(row.push_until!).getTime()).toBe(later.getTime() + FEDEX_AIV_LIFETIME_MS);
    expect(aiv().isSubscribed(number)).toBe(true);
  });

  it('a number the job report refuses is offered again hours later, not subscribed', async () => {
    const number = '477179081230';
    aiv().refuse.add(number);
    const order = await shippedOrder(number);
    const refused = await afterFirstJob(order.id, number, 'COMPLETED', 'the refusing report read');
    expect(jobsFor(number)[0]!.results[0]).toMatchObject({ trackingNumber: number, status: 'FAILURE' });
    expect(refused.push_until).toBeNull();
    const retryAt = new Date(refused.push_renew_at!).getTime();
    expect(retryAt - Date.now()).toBeGreaterThan(REFUSED_RETRY_MS - 60_000);
    expect(aiv().isSubscribed(number)).toBe(false);
  });

  it('removes numbers by a REMOVE job (the client; documented "add or remove")', async () => {
    const client = createFedexAivSubscriptions({
      baseUrl: `${app.baseUrl}/sandbox/fedex`,
      clientId: 'doorstep-sandbox',
      clientSecret: 'doorstep-sandbox',
      accountNumber: '123456789',
    });
    const number = '986578788855';
    const added = await client.subscribe([number]);
    expect(added).toMatchObject({ subscribed: [], refused: [] });
    expect(await client.jobOutcome!(added.job!)).toEqual({ state: 'done', subscribed: [number], refused: [] });
    expect(aiv().isSubscribed(number)).toBe(true);
    const removal = await client.unsubscribe([number]);
    expect(await client.jobOutcome!(removal)).toMatchObject({ state: 'done', subscribed: [number] });
    expect(aiv().isSubscribed(number)).toBe(false);
    expect(await client.jobOutcome!('no-such-job')).toMatchObject({ state: 'failed' });
  });
});
