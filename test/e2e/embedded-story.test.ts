import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../support/chromium.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, startDoorstep, type RunningDoorstep } from '../support/processes.ts';
import { eventually } from '../support/workers.ts';
import { decodedMail } from '../support/mail-server.ts';
import { fixture } from '../videos/video-test-app.ts';
import { API_TIMESTAMP } from '../support/formats.ts';
import { Scrape } from '../support/prometheus.ts';
import { OPERATOR_PASSWORD_FILE } from '../../src/operations/operator-credentials.ts';
import { parseTokenKey, tokenKeyId } from '../../src/shopify/auth/token-cipher.ts';
import { TOKEN_KEY_FILE } from '../../src/shopify/auth/token-key-file.ts';
import { outboxMails } from '../support/outbox.ts';

/**
 * Issue 4's "done when", on `npm start`'s embedded defaults in a real child process (PGlite, private
 * redis-server, carrier sandbox, e-mail outbox): create order → upload a real video → carrier +
 * sandbox tracking number → sandbox delivers → exactly one recipient e-mail in the outbox with the
 * playback link → the link plays in Chromium and sets viewed_at.
 */
let doorstep: RunningDoorstep;
let dataDir: string;
let server: RunningDoorstep['proc'];
let base: string;

beforeAll(async () => {
  // The embedded story is about the defaults: no DATABASE_URL, no REDIS_URL, no SMTP (the carrier
  // sandbox startDoorstep turns on is the development default too).
  doorstep = await startDoorstep({
    name: 'e2e',
    env: {
      // Every line the process can log, so the privacy check at the end sees all of them.
      LOG_LEVEL: 'debug',
      DATABASE_URL: '',
      SMTP_URL: '',
      // The embedded default generates the Shopify token key (`npm run test:postgres` sets one).
      TOKEN_ENCRYPTION_KEY: '',
      TOKEN_ENCRYPTION_PREVIOUS_KEYS: '',
    },
  });
  ({ dataDir, base, proc: server } = doorstep);
}, 90_000);
afterAll(async () => {
  await doorstep?.stop();
});

it('plays the whole story on the embedded defaults', async () => {
  const created = await runCli(['accounts', 'create', '--name', 'E2E store', '--json'], {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
  });
  const { app_id, api_key } = JSON.parse(created.stdout) as { app_id: string; api_key: string };
  const auth = `Basic ${Buffer.from(`${app_id}:${api_key}`).toString('base64')}`;
  const api = async (method: string, url: string, body?: unknown, contentType = 'application/json') => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': contentType } : {}) },
      ...(body !== undefined ? { body: Buffer.isBuffer(body) ? body : JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };

  // Personal values distinctive enough that finding one in the logs cannot be a coincidence.
  const personal = {
    name: 'Annabel Privacy-Sender',
    email: 'annabel.private@example.com',
    recipient_name: 'Bartholomew Privacy-Recipient',
    recipient_email: 'bartholomew.private@example.com',
    video_title: 'Happy birthday Bartholomew-Private',
  };
  const order = (await api('POST', '/v1/orders', personal)).body;
  expect(
    (await api('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), 'video/webm')).status,
  ).toBe(200);
  await eventually(
    async () => ((await api('GET', `/v1/orders/${order.id}`)).body.video_processed === '1' ? true : undefined),
    30_000,
    'video processing',
  );

  const number = '1Z5R89390357567127';
  expect((await api('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: number })).status).toBe(200);
  const deliveredAt = Date.now();
  await fetch(`${base}/sandbox/carriers/ups/packages/${number}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivered' }),
  });

  const mailsTo = (to: RegExp) => outboxMails(dataDir).filter((m) => to.test(m));
  const recipientMails = () => mailsTo(/^To: bartholomew\.private@example\.com/m);
  const [mail] = await eventually(
    async () => (recipientMails().length > 0 ? recipientMails() : undefined),
    30_000,
    'the recipient e-mail in the outbox',
  );
  expect(Date.now() - deliveredAt).toBeLessThan(20_000);
  // Bodies are quoted-printable: undone before looking for the link.
  const decoded = decodedMail(mail!);
  expect(decoded).toContain(order.playback_url);
  // Exactly one, and it stays one: the dispatcher sends the sender's "was sent" note after the
  // recipient's e-mail, so once that note is in the outbox the dispatcher has moved past it; and the
  // timeline shows that only one message to the recipient was ever queued.
  await eventually(
    async () => (mailsTo(/^To: annabel\.private@example\.com/m).some((m) => /was sent/.test(m)) ? true : undefined),
    30_000,
    "the sender's note in the outbox",
  );
  expect(recipientMails()).toHaveLength(1);
  const timeline = (await api('GET', `/v1/orders/${order.id}/events`)).body as unknown as {
    data: Array<{ type: string }>;
  };
  expect(timeline.data.filter((e) => e.type === 'send.queued')).toHaveLength(1);

  const browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  try {
    const page = await browser.newPage();
    await page.goto(order.playback_url!);
    expect((await api('GET', `/v1/orders/${order.id}`)).body.viewed_at).toBeNull();
    await page.locator('video#message').evaluate((video) => (video as unknown as { play(): Promise<void> }).play());
    const viewed = await eventually(
      async () => (await api('GET', `/v1/orders/${order.id}`)).body.viewed_at ?? undefined,
      15_000,
      'viewed_at',
    );
    expect(viewed).toMatch(API_TIMESTAMP);
  } finally {
    await browser.close();
  }

  // Issue 12: the process's own /metrics counts this story exactly. On the embedded defaults the
  // operator password is generated into DATA_DIR; without it /metrics is 401.
  expect((await fetch(`${base}/metrics`)).status).toBe(401);
  const password = fs.readFileSync(path.join(dataDir, OPERATOR_PASSWORD_FILE), 'utf8').trim();
  const metrics = await fetch(`${base}/metrics`, {
    headers: { Authorization: `Basic ${Buffer.from(`operator:${password}`).toString('base64')}` },
  });
  expect(metrics.status).toBe(200);
  const scrape = new Scrape(await metrics.text());
  const requests = (labels: Record<string, string>) =>
    scrape.sum('doorstep_http_request_duration_seconds_count', labels);
  expect(requests({ method: 'POST', route: '/v1/orders', status: '201' })).toBe(1);
  expect(requests({ method: 'PUT', route: '/v1/orders/:orderId/video', status: '200' })).toBe(1);
  expect(requests({ method: 'PUT', route: '/v1/orders/:orderId', status: '200' })).toBe(1);
  expect(scrape.sum('doorstep_sends_total', { channel: 'email', kind: 'recipient_video', outcome: 'sent' })).toBe(1);
  expect(scrape.sum('doorstep_sends_total', { channel: 'email', kind: 'sender_sent_note', outcome: 'sent' })).toBe(1);
  expect(scrape.sum('doorstep_sends_total', { outcome: 'failed' })).toBe(0);
  expect(scrape.sum('doorstep_delivered_to_sent_seconds_count', { channel: 'email' })).toBe(1);
  // Every carrier call the sandbox answered, counted by us too: no call goes around the metrics.
  const ups = (await (await fetch(`${base}/sandbox/carriers/ups/stats`)).json()) as {
    track_calls: number;
    subscribe_calls: number;
  };
  expect(ups.track_calls).toBeGreaterThan(0);
  expect(scrape.sum('doorstep_carrier_calls_total', { carrier: 'ups', operation: 'track' })).toBe(ups.track_calls);
  expect(scrape.sum('doorstep_carrier_calls_total', { carrier: 'ups', operation: 'subscribe' })).toBe(
    ups.subscribe_calls,
  );

  // Issue 13: personal data never reaches the logs, at any level, across the whole story — names,
  // addresses, the title, and the capability keys of the record and watch pages (the order id,
  // which opens nothing, is what logs name instead).
  const logs = server.output();
  expect(logs.length).toBeGreaterThan(1000); // the check below read real logs, not an empty string
  expect(logs).toContain(order.id!);
  const capabilityKeys = [order.record_url!, order.playback_url!].map((url) => new URL(url).pathname.split('/').pop()!);
  for (const value of [...Object.values(personal), ...capabilityKeys])
    expect(logs, `the logs contain ${value}`).not.toContain(value);
  expect(logs).not.toMatch(/annabel|bartholomew/i);

  // Issue 13 item 14: the Shopify token key was generated into DATA_DIR, readable by its owner only;
  // the log names the file, never the key.
  const keyFile = path.join(dataDir, TOKEN_KEY_FILE);
  expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  const key = fs.readFileSync(keyFile, 'utf8').trim();
  expect(logs).toContain(keyFile);
  expect(logs).not.toContain(key);
  expect(logs).not.toContain(Buffer.from(key, 'base64').toString('hex'));
  // The rotation command reaches the running server through its admin socket and uses its key.
  const rotated = await runCli(['shopify', 'rotate-token-key', '--json'], { DATA_DIR: dataDir, DATABASE_URL: '' });
  expect(rotated.code).toBe(0);
  expect(JSON.parse(rotated.stdout)).toMatchObject({ key_id: tokenKeyId(parseTokenKey(key)), unreadable: [] });
}, 120_000);
