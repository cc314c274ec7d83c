import pg from 'pg';
import { expect, it } from 'vitest';
import type { PostgresServer } from '../support/postgres-server.ts';
import { printOutputOnFailure, type RunningDoorstep } from '../support/processes.ts';
import type { StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';
import { mailServerForFile, type MailServer } from '../support/mail-server-for-file.ts';
import {
  doorstepOnPostgresForFile,
  orderSent,
  orderWithProcessedVideo,
  sigkill,
  webOnlyWithQuickRecovery,
} from './doorstep-on-postgres.ts';

/**
 * Issue 13, "A worker killed with SIGKILL while holding a send claim, and while mid-poll: the work
 * completes exactly once." compose.yaml's topology from processes: a web process (`WORKERS=off`,
 * which serves the carrier sandbox) and worker processes (`npm run worker`) on a private PostgreSQL
 * server and the suite's Redis, with a real SMTP server as the inbox. Each case SIGKILLs a worker
 * at a chosen moment, starts another, and counts what the recipient got.
 *
 * The recovery clocks are shortened through their settings (claims return after 3 s, the
 * reconciler runs every second) so the file runs in about two minutes; their defaults are minutes.
 */
const CLAIM_TIMEOUT_MS = 3_000;

let mail: MailServer;
let postgres: PostgresServer;
let doorstep: RunningDoorstep;
let base: string;
let store: StoreClient;
let db: pg.Client;

mailServerForFile((started) => (mail = started));
doorstepOnPostgresForFile(
  'worker-killed',
  () => ({
    ...webOnlyWithQuickRecovery('worker-killed'),
    SMTP_URL: mail.url,
    // Polling only: a pushed delivery would reach the order without the poll this test interrupts.
    CARRIER_PUSH: 'off',
    SEND_CLAIM_TIMEOUT_MS: String(CLAIM_TIMEOUT_MS),
  }),
  (started) => {
    ({ postgres, doorstep, store, db } = started);
    base = doorstep.base;
  },
);

const inbox = (address: string) => mail.messages.filter((message) => message.to.includes(address));
const seconds = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

async function timelineTypes(id: string): Promise<string[]> {
  const events = await store.api('GET', `/v1/orders/${id}/events`);
  return (events.body.data as { type: string }[]).map((event) => event.type);
}

async function recipientSend(orderId: string) {
  const { rows } = await db.query<{ status: string; attempts: number; due_at: Date }>(
    `select status, attempts, due_at from sends where order_id = $1 and kind = 'recipient_video'`,
    [orderId],
  );
  return rows;
}

it('a worker killed while it holds a send claim: the claim returns to pending, the recipient gets one e-mail, and the timeline says why', async () => {
  printOutputOnFailure(doorstep);
  const recipient = 'claim-held@example.com';
  const first = await doorstep.startWorker();
  // A date far ahead: the video waits as a pending send while the test sets the moment it is due.
  const id = await orderWithProcessedVideo(store, {
    recipient_email: recipient,
    send_trigger: 'date',
    send_on: seconds(new Date(Date.now() + 86_400_000)),
  });
  await eventually(async () => ((await recipientSend(id))[0]?.status === 'pending' ? true : undefined));

  // Due in a few seconds. Once notifications has moved the send (the outbox drained), the test takes
  // the order's row lock, which the dispatcher's move to `sending` (a share lock) must wait for.
  const dueAt = new Date(Math.ceil((Date.now() + 8_000) / 1_000) * 1_000);
  expect((await store.api('PUT', `/v1/orders/${id}`, { send_on: seconds(dueAt) })).status).toBe(200);
  await eventually(async () => {
    const [send] = await recipientSend(id);
    const { rows } = await db.query(`select 1 from order_outbox where order_id = $1`, [id]);
    return send?.due_at.getTime() === dueAt.getTime() && rows.length === 0 ? true : undefined;
  }, 30_000);
  const lock = new pg.Client({ connectionString: postgres.url });
  await lock.connect();
  await lock.query('begin');
  await lock.query('select id from orders where id = $1 for update', [id]);
  if ((await recipientSend(id))[0]?.status !== 'pending')
    throw new Error('the send was claimed before the test held the order lock (a slow machine); run it again');

  // The dispatcher claims it (pending → claimed, attempt 1) and then waits on the lock: the claim is held.
  await eventually(
    async () => {
      const [send] = await recipientSend(id);
      const waiting = await db.query(
        `select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
      );
      return send?.status === 'claimed' && waiting.rows.length > 0 ? send : undefined;
    },
    30_000,
    'the dispatcher holding the claim, waiting on the order lock',
  );
  await sigkill(first);
  await lock.query('rollback');
  await lock.end();
  expect(await recipientSend(id)).toMatchObject([{ status: 'claimed', attempts: 1 }]);
  expect(inbox(recipient)).toHaveLength(0);

  // A new worker's reconciler returns the abandoned claim after SEND_CLAIM_TIMEOUT_MS; it is sent once.
  const second = await doorstep.startWorker();
  await eventually(async () => (inbox(recipient).length > 0 ? true : undefined), 60_000, 'the recipient e-mail');
  await orderSent(store, id);
  await eventually(
    async () => (inbox('ann@example.com').some((m) => /was sent/i.test(m.raw)) ? true : undefined),
    30_000,
    "the sender's note",
  );
  expect(inbox(recipient)).toHaveLength(1);
  expect(await recipientSend(id)).toMatchObject([{ status: 'sent', attempts: 2 }]);
  expect(second.output()).toMatch(/"released":1,"uncertain":0.*"msg":"reconciled sends interrupted by a crash"/);

  const types = await timelineTypes(id);
  expect(types.filter((type) => type === 'send.requeued')).toHaveLength(1);
  expect(types.filter((type) => type === 'video.sent')).toHaveLength(1);
  expect(types.indexOf('send.requeued')).toBeLessThan(types.indexOf('video.sent'));
  expect(types).not.toContain('send.uncertain');
  const requeued = (
    (await store.api('GET', `/v1/orders/${id}/events`)).body.data as { type: string; data: { reason: string } }[]
  ).find((event) => event.type === 'send.requeued');
  expect(requeued?.data.reason).toMatch(/stopped before handing the message to the provider/);

  await second.stop();
}, 180_000);

it('a worker killed while its carrier call is in flight: a new worker polls the package again, sees it delivered once, and one e-mail goes out', async () => {
  printOutputOnFailure(doorstep);
  const recipient = 'mid-poll@example.com';
  const trackingNumber = '1Z410E7W0392751591';
  const sandbox = (method: string, url: string, body?: unknown) =>
    fetch(`${base}/sandbox/carriers/ups${url}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const trackCalls = async () =>
    ((await (await sandbox('GET', '/stats')).json()) as { track_calls: number }).track_calls;

  const senderNotes = () => inbox('ann@example.com').filter((m) => /was sent/i.test(m.raw)).length;
  const notesBefore = senderNotes();
  const first = await doorstep.startWorker();
  const id = await orderWithProcessedVideo(store, { recipient_email: recipient });
  expect((await store.api('PUT', `/v1/orders/${id}`, { carrier: 'ups', tracking_number: trackingNumber })).status).toBe(
    200,
  );
  // From now on the carrier holds every tracking call for a minute (longer than the test waits for it).
  expect((await sandbox('POST', '/faults', { delay_ms: 60_000 })).status).toBe(204);
  const before = await trackCalls();
  expect((await sandbox('POST', `/packages/${trackingNumber}/events`, { status: 'delivered' })).status).toBe(201);
  await eventually(async () => ((await trackCalls()) > before ? true : undefined), 30_000, "the worker's poll");
  await sigkill(first);
  expect((await sandbox('DELETE', '/faults')).status).toBe(204);

  // The call never answered: nothing was applied, the package is still leased to the dead worker's job.
  expect((await store.api('GET', `/v1/orders/${id}`)).body.delivered).toBe('0');
  const { rows: leased } = await db.query(`select lease_token from trackings where order_id = $1`, [id]);
  expect(leased[0]?.lease_token).not.toBeNull();
  expect(inbox(recipient)).toHaveLength(0);

  // BullMQ gives the stalled poll job (its lock lapsed with the worker) to the new worker, under the
  // same lease: the package is polled again, seen delivered, and the video goes out.
  const second = await doorstep.startWorker();
  await eventually(async () => (inbox(recipient).length > 0 ? true : undefined), 150_000, 'the recipient e-mail');
  await orderSent(store, id);
  await eventually(async () => (senderNotes() > notesBefore ? true : undefined), 30_000, "the sender's note");
  expect(inbox(recipient)).toHaveLength(1);
  expect(await recipientSend(id)).toMatchObject([{ status: 'sent', attempts: 1 }]);
  const types = await timelineTypes(id);
  expect(types.filter((type) => type === 'order.delivered')).toHaveLength(1);
  expect(types.filter((type) => type === 'video.sent')).toHaveLength(1);
  // Delivered stops tracking: the lease is released and no poll is due.
  const { rows: tracking } = await db.query(`select lease_token, next_poll_at from trackings where order_id = $1`, [
    id,
  ]);
  expect(tracking).toEqual([{ lease_token: null, next_poll_at: null }]);

  await second.stop();
}, 240_000);
