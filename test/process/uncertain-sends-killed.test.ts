import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startFakeSmsApi } from '../support/fake-sms.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import {
  printOutputOnFailure,
  startDoorstep,
  waitForExit,
  type DoorstepProcess,
  type RunningDoorstep,
} from '../support/processes.ts';
import { createStore, sampleVideo, type StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';

/**
 * Issue 31, item 9, with real processes: "Killing the app mid-delivery left sends `uncertain`, and
 * nothing happened until the merchant resent." A worker process is SIGKILLed while the SMS
 * provider (the Twilio-format fake over HTTP) holds the recipient's message call open. A new worker
 * finds the send stuck in `sending`, declares it uncertain, asks Twilio's Message list, and settles
 * it by itself: recorded as sent when Twilio took the message, sent again (once) when it did not.
 * Web (`WORKERS=off`) and workers are separate processes on a private PostgreSQL and the suite's Redis.
 *
 * The recovery clocks are shortened through their settings (a send stuck in `sending` is looked at
 * after 3 s, the reconciler runs every second); their defaults are minutes.
 */
let sms: Awaited<ReturnType<typeof startFakeSmsApi>>;
let postgres: PostgresServer;
let doorstep: RunningDoorstep;
let store: StoreClient;
let db: pg.Client;

beforeAll(async () => {
  sms = await startFakeSmsApi();
  postgres = await startPostgresServer();
  doorstep = await startDoorstep({
    name: 'uncertain-killed',
    env: {
      ...postgres.doorstepEnv,
      ...sms.env,
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: `uncertain-killed-${process.pid}`,
      SEND_CLAIM_TIMEOUT_MS: '3000',
      SEND_SENDING_TIMEOUT_MS: '3000',
      RECONCILE_EVERY_MS: '1000',
      SHUTDOWN_TIMEOUT_MS: '5000',
      METRICS_PORT: '0',
      WORKERS: 'off',
    },
  });
  store = await createStore(doorstep.base, doorstep.env);
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await doorstep?.stop();
  await sms?.close();
  postgres?.destroy();
});

const smsTo = (phone: string) => sms.messages.filter((message) => message.to === phone);

async function recipientSend(orderId: string) {
  const { rows } = await db.query<{ status: string; attempts: number; provider_message_id: string | null }>(
    `select status, attempts, provider_message_id from sends where order_id = $1 and kind = 'recipient_video'`,
    [orderId],
  );
  return rows[0];
}

async function timeline(orderId: string) {
  return (await store.api('GET', `/v1/orders/${orderId}/events`)).body.data as Array<{
    type: string;
    data: Record<string, unknown>;
  }>;
}

/**
 * An SMS gift whose video is processed, then delivered (custom tracking), with the provider holding
 * the call: resolves once the worker's call to Twilio hangs there, the send in `sending`.
 */
async function giftStuckAtTheProvider(phone: string): Promise<string> {
  const created = await store.api('POST', '/v1/orders', {
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    recipient_phone: phone,
    send_method: 'sms',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await store.api('PUT', `/v1/orders/${id}/video`, sampleVideo(), 'video/webm')).status).toBe(200);
  await eventually(
    async () => ((await store.api('GET', `/v1/orders/${id}`)).body.video_processed === '1' ? true : undefined),
    60_000,
    'the video processed',
  );
  const heldBefore = sms.held();
  expect((await store.api('PUT', `/v1/orders/${id}`, { delivered: 1 })).status).toBe(200);
  await eventually(
    async () => (sms.held() > heldBefore && (await recipientSend(id))?.status === 'sending' ? true : undefined),
    60_000,
    'the recipient SMS held open at the provider',
  );
  return id;
}

async function killed(worker: DoorstepProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  expect(await waitForExit(worker.child, 10_000)).toMatchObject({ signal: 'SIGKILL' });
}

it('a worker killed while Twilio holds a message it took: a new worker finds it in the Message list and records it sent; nothing is sent twice', async () => {
  printOutputOnFailure(doorstep);
  const phone = '+14155550101';
  sms.hold('taken');
  const first = await doorstep.startWorker();
  const id = await giftStuckAtTheProvider(phone);
  await killed(first);
  sms.hold(null);
  expect(smsTo(phone)).toHaveLength(1);

  const second = await doorstep.startWorker();
  const resolved = await eventually(
    async () => (await timeline(id)).find((event) => event.type === 'send.resolved'),
    60_000,
    'the uncertain send resolved',
  );
  expect(resolved.data).toMatchObject({ outcome: 'sent', channel: 'sms' });
  expect(await recipientSend(id)).toMatchObject({ status: 'sent', provider_message_id: expect.stringMatching(/^SM/) });
  await eventually(
    async () => ((await store.api('GET', `/v1/orders/${id}`)).body.sent_at ? true : undefined),
    30_000,
    'sent_at',
  );
  // A few reconciler rounds later, still one message and no alert for the merchant.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(smsTo(phone)).toHaveLength(1);
  const types = (await timeline(id)).map((event) => event.type);
  expect(types).toContain('send.uncertain');
  expect(types).not.toContain('send.attention');
  await second.stop();
}, 240_000);

it('a worker killed while its message call hangs and Twilio never took it: a new worker finds nothing in the Message list and sends it once', async () => {
  printOutputOnFailure(doorstep);
  const phone = '+14155550102';
  sms.hold('dropped');
  const first = await doorstep.startWorker();
  const id = await giftStuckAtTheProvider(phone);
  await killed(first);
  sms.hold(null);
  expect(smsTo(phone)).toHaveLength(0);

  const second = await doorstep.startWorker();
  await eventually(async () => (smsTo(phone).length > 0 ? true : undefined), 60_000, 'the recipient SMS');
  expect((await timeline(id)).find((event) => event.type === 'send.resolved')?.data).toMatchObject({
    outcome: 'resent',
    channel: 'sms',
  });
  await eventually(
    async () => ((await recipientSend(id))?.status === 'sent' ? true : undefined),
    30_000,
    'the send recorded',
  );
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(smsTo(phone)).toHaveLength(1);
  expect((await timeline(id)).map((event) => event.type)).not.toContain('send.attention');
  await second.stop();
}, 240_000);
