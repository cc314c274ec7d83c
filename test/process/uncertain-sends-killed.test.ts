import type pg from 'pg';
import { expect, it } from 'vitest';
import { startFakeSmsApi } from '../support/fake-sms.ts';
import { forFile } from '../support/for-file.ts';
import { printOutputOnFailure, type RunningDoorstep } from '../support/processes.ts';
import type { StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';
import {
  doorstepOnPostgresForFile,
  orderSent,
  orderWithProcessedVideo,
  sigkill,
  webOnlyWithQuickRecovery,
} from './doorstep-on-postgres.ts';

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
let doorstep: RunningDoorstep;
let store: StoreClient;
let db: pg.Client;

forFile(
  () => startFakeSmsApi(),
  (started) => (sms = started),
  (started) => started.close(),
);
doorstepOnPostgresForFile(
  'uncertain-killed',
  () => ({
    ...webOnlyWithQuickRecovery('uncertain-killed'),
    ...sms.env,
    SEND_CLAIM_TIMEOUT_MS: '3000',
    SEND_SENDING_TIMEOUT_MS: '3000',
  }),
  (started) => ({ doorstep, store, db } = started),
);

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
 * the call (`hold`, see test/support/fake-sms.ts): once the worker's call to Twilio hangs there, the
 * send in `sending`, the worker is SIGKILLed and the provider answers again. Resolves with the order.
 */
async function giftWhoseWorkerDiedAtTheProvider(phone: string, hold: 'taken' | 'dropped'): Promise<string> {
  sms.hold(hold);
  const worker = await doorstep.startWorker();
  const id = await orderWithProcessedVideo(store, { recipient_phone: phone, send_method: 'sms' });
  const heldBefore = sms.held();
  expect((await store.api('PUT', `/v1/orders/${id}`, { delivered: 1 })).status).toBe(200);
  await eventually(
    async () => (sms.held() > heldBefore && (await recipientSend(id))?.status === 'sending' ? true : undefined),
    60_000,
    'the recipient SMS held open at the provider',
  );
  await sigkill(worker);
  sms.hold(null);
  return id;
}

it('a worker killed while Twilio holds a message it took: a new worker finds it in the Message list and records it sent; nothing is sent twice', async () => {
  printOutputOnFailure(doorstep);
  const phone = '+14155550101';
  const id = await giftWhoseWorkerDiedAtTheProvider(phone, 'taken');
  expect(smsTo(phone)).toHaveLength(1);

  const second = await doorstep.startWorker();
  const resolved = await eventually(
    async () => (await timeline(id)).find((event) => event.type === 'send.resolved'),
    60_000,
    'the uncertain send resolved',
  );
  expect(resolved.data).toMatchObject({ outcome: 'sent', channel: 'sms' });
  expect(await recipientSend(id)).toMatchObject({ status: 'sent', provider_message_id: expect.stringMatching(/^SM/) });
  await orderSent(store, id);
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
  const id = await giftWhoseWorkerDiedAtTheProvider(phone, 'dropped');
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
