import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import { startFakeSmsApi } from '../support/fake-sms.ts';
import { startMailServer } from '../support/mail-server.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import {
  freePort,
  outputWithoutAccessLog,
  startDoorstep,
  type DoorstepProcess,
  type RunningDoorstep,
} from '../support/processes.ts';
import { createStore, sampleVideo, type StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';

/**
 * Issue 13, "The SMTP server refusing connections for a minute, and the SMS API returning 500s:
 * backoff, a visible status on the order, and eventual success." `npm start` on a private
 * PostgreSQL sends one gift by e-mail and SMS while SMTP_URL points at a port nothing listens on
 * (for a minute; then a real SMTP server starts on it) and the Twilio-compatible API answers 500
 * (for its first attempts). Each channel backs off on its own, the order's timeline says each
 * failure, its reason and the next try, and each message arrives exactly once.
 *
 * SEND_RETRY_FIRST_DELAY_MS=1000 (default 30 s) keeps the minute's backoff to a handful of tries.
 */
const FIRST_DELAY_MS = 1_000;
const SMTP_OUTAGE_MS = 60_000;

let sms: Awaited<ReturnType<typeof startFakeSmsApi>>;
let mail: Awaited<ReturnType<typeof startMailServer>> | undefined;
let postgres: PostgresServer;
let doorstep: RunningDoorstep;
let proc: DoorstepProcess;
let smtpPort: number;
let base: string;
let store: StoreClient;

beforeAll(async () => {
  sms = await startFakeSmsApi();
  postgres = await startPostgresServer();
  // Nothing listens here until the mail server starts on it: every connection is refused.
  smtpPort = await freePort();
  doorstep = await startDoorstep({
    name: 'provider-outages',
    env: {
      ...postgres.doorstepEnv,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      ...sms.env,
      SEND_RETRY_FIRST_DELAY_MS: String(FIRST_DELAY_MS),
    },
  });
  ({ proc, base } = doorstep);
  store = await createStore(base, doorstep.env);
}, 120_000);

afterAll(async () => {
  await doorstep?.stop();
  await mail?.close();
  await sms?.close();
  postgres?.destroy();
});

interface TimelineEntry {
  type: string;
  data: { kind?: string; channel?: string; attempt?: number; retry_at?: string; reason?: string };
}

it('SMTP refusing connections for a minute and the SMS API answering 500: each channel backs off, the order shows it, and each message arrives once', async () => {
  onTestFailed(() =>
    console.error(`npm start's output (access log left out):\n${outputWithoutAccessLog(proc, 12_000)}`),
  );
  const recipient = 'outage@example.com';
  const phone = '+14155550199';
  sms.failWith(500);

  const created = await store.api('POST', '/v1/orders', {
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    recipient_email: recipient,
    recipient_phone: phone,
    send_method: 'email_and_sms',
    send_trigger: 'now',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const video = sampleVideo();
  expect((await store.api('PUT', `/v1/orders/${id}/video`, video, 'video/webm')).status).toBe(200);

  const timeline = async () =>
    ((await store.api('GET', `/v1/orders/${id}/events`)).body.data as TimelineEntry[]).filter(
      (entry) => entry.data.kind === 'recipient_video' || entry.type === 'video.sent',
    );
  const retries = async (channel: string) =>
    (await timeline()).filter((entry) => entry.type === 'send.retry_scheduled' && entry.data.channel === channel);

  // The SMS API answers 500 to its first three tries, then recovers.
  const refusedSms = () => sms.attempts.filter((attempt) => attempt.to === phone && attempt.status === 500);
  await eventually(async () => (refusedSms().length >= 3 ? true : undefined), 60_000, 'three refused SMS');
  sms.failWith(null);
  await eventually(async () => (sms.messages.some((m) => m.to === phone) ? true : undefined), 30_000, 'the SMS');

  // Meanwhile the e-mail's failures are visible on the order: each one's reason and its next try.
  const firstEmailFailure = await eventually(async () => (await retries('email'))[0], 30_000, 'an e-mail failure');
  expect(firstEmailFailure.data).toMatchObject({ attempt: 1, reason: expect.stringMatching(/ECONNREFUSED/) });
  // Timed from that first refused connection (its retry_at less the first step), not from when the
  // test saw it, so the server starts just before a try rather than just after one.
  const outageStart = Date.parse(firstEmailFailure.data.retry_at!) - FIRST_DELAY_MS;
  // SMTP stays down for a minute (and at least five tries), then a real server starts on its port.
  await eventually(
    async () => (Date.now() - outageStart >= SMTP_OUTAGE_MS && (await retries('email')).length >= 5 ? true : undefined),
    SMTP_OUTAGE_MS + 60_000,
    'a minute of SMTP outage',
  );
  const emailsMissed = (await retries('email')).length;
  expect(emailsMissed).toBeLessThanOrEqual(8);
  mail = await startMailServer({ port: smtpPort });
  const inbox = (address: string) => mail!.messages.filter((message) => message.to.includes(address));

  await eventually(async () => (inbox(recipient).length > 0 ? true : undefined), 90_000, 'the recipient e-mail');
  // The sender's note (queued once the SMS went out) met the same outage and arrives after it too.
  await eventually(
    async () => (inbox('ann@example.com').some((m) => /was sent/i.test(m.raw)) ? true : undefined),
    90_000,
    "the sender's note",
  );
  expect(inbox(recipient)).toHaveLength(1);
  expect(sms.messages.filter((m) => m.to === phone)).toHaveLength(1);
  expect(inbox('ann@example.com').filter((m) => /was sent/i.test(m.raw))).toHaveLength(1);
  expect((await store.api('GET', `/v1/orders/${id}`)).body.sent_at).toEqual(expect.any(String));

  // Backoff: each channel's tries came further and further apart, starting at the first step.
  const smsTries = sms.attempts.filter((attempt) => attempt.to === phone).map((attempt) => attempt.at);
  expect(smsTries).toHaveLength(4);
  for (let i = 1; i < smsTries.length; i++)
    expect(smsTries[i]! - smsTries[i - 1]!, `gap before SMS try ${i + 1}`).toBeGreaterThanOrEqual(
      FIRST_DELAY_MS * 2 ** (i - 1) - 50,
    );
  for (const channel of ['email', 'sms']) {
    const scheduled = await retries(channel);
    expect(scheduled.map((entry) => entry.data.attempt)).toEqual(scheduled.map((_, i) => i + 1));
    // A try waits for the previous retry_at, so consecutive retry_at are at least the next step apart.
    const retryAt = scheduled.map((entry) => Date.parse(entry.data.retry_at!));
    for (let i = 1; i < retryAt.length; i++)
      expect(retryAt[i]! - retryAt[i - 1]!, `${channel} retry ${i + 1}`).toBeGreaterThanOrEqual(
        FIRST_DELAY_MS * 2 ** i,
      );
    expect(scheduled.every((entry) => (entry.data.reason ?? '').length > 0)).toBe(true);
  }
  expect((await retries('sms')).map((entry) => entry.data.reason)).toEqual(
    Array.from({ length: 3 }, () => expect.stringMatching(/500/)),
  );
  // The e-mail went out on the try after the last failure recorded when the server started (or the one after).
  expect((await retries('email')).length).toBeLessThanOrEqual(emailsMissed + 1);
  const entries = await timeline();
  const types = entries.map((entry) => entry.type);
  // One per channel, SMS first (its outage was the shorter).
  expect(entries.filter((entry) => entry.type === 'video.sent').map((entry) => entry.data.channel)).toEqual([
    'sms',
    'email',
  ]);
  expect(types).not.toContain('send.failed');
  expect(types).not.toContain('send.uncertain');
}, 240_000);
