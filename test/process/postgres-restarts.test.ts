import { expect, it, onTestFailed } from 'vitest';
import { forFile } from '../support/for-file.ts';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.ts';
import {
  doorstepForFile,
  outputWithoutAccessLog,
  type DoorstepProcess,
  type RunningDoorstep,
} from '../support/processes.ts';
import { createStore, sampleVideo, type StoreClient } from '../support/story.ts';
import { eventually } from '../support/workers.ts';
import { mailServerForFile, type MailServer } from '../support/mail-server-for-file.ts';

/**
 * Issue 13, "PostgreSQL restarted under load": `npm start` on a private PostgreSQL server that is
 * stopped (`pg_ctl stop -m fast`, which also ends the open connections) and started again while
 * clients create and update orders and three delivered gifts wait to be sent. While it is down
 * every answer is a 503 with the JSON error and `Retry-After`, never a 500 or a hang; afterwards
 * every order a 201 announced is there whole, no order exists that no one was told about, a failed
 * POST replayed with its Idempotency-Key creates its order once, and each gift goes out once.
 */
let mail: MailServer;
let postgres: PostgresServer;
let proc: DoorstepProcess;
let base: string;
let env: RunningDoorstep['env'];

mailServerForFile((started) => (mail = started));
forFile(
  () => startPostgresServer(),
  (started) => (postgres = started),
  async (started) => started.destroy(),
);
doorstepForFile(
  () => ({
    name: 'postgres-restarts',
    env: {
      ...postgres.doorstepEnv,
      SMTP_URL: mail.url,
      // A send claimed just as the database went away (its message read failed, so no provider was
      // called) stays claimed until the reconciler returns it: production's 60 s run and 2 min claim
      // timeout would put that past this test's wait (it did once, in a full run on a loaded machine).
      // The sending timeout stays production's, so a send whose provider call straddled the outage is
      // still recorded when the database is back, not declared uncertain.
      RECONCILE_EVERY_MS: '2000',
      SEND_CLAIM_TIMEOUT_MS: '10000',
    },
  }),
  (started) => ({ proc, base, env } = started),
);

interface Answer {
  what: string;
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
  at: number;
}

/** One client's traffic: create an order (with an Idempotency-Key), then change its price, again and again. */
async function client(
  store: StoreClient,
  name: string,
  answers: Answer[],
  created: Map<string, { key: string; body: Record<string, unknown>; prices: number[] }>,
  failedPosts: Map<string, Record<string, unknown>>,
  running: () => boolean,
): Promise<void> {
  const note = (what: string, response: Awaited<ReturnType<StoreClient['api']>>) =>
    answers.push({
      what,
      status: response.status,
      body: response.body,
      retryAfter: response.headers.get('retry-after'),
      at: Date.now(),
    });
  for (let n = 0; running(); n++) {
    const key = `${name}-${n}`;
    const order = {
      name: `Sender ${key}`,
      email: `sender-${key}@example.com`,
      recipient_name: `Recipient ${key}`,
      recipient_email: `recipient-${key}@example.com`,
      price: 1000 + n,
    };
    const post = await store.api('POST', '/v1/orders', order, 'application/json', { 'Idempotency-Key': key });
    note(`POST ${key}`, post);
    if (post.status !== 201) {
      failedPosts.set(key, order);
      // A real client would wait Retry-After; a short pause keeps the outage's requests countable.
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const id = post.body.id as string;
    const record = { key, body: order, prices: [] as number[] };
    created.set(id, record);
    for (let p = 1; p <= 3 && running(); p++) {
      const price = order.price * 10 + p;
      const put = await store.api('PUT', `/v1/orders/${id}`, { price });
      note(`PUT ${id} price`, put);
      if (put.status === 200) record.prices.push(price);
    }
  }
}

it('a PostgreSQL restart under load answers 503 meanwhile, loses and half-writes nothing, and work resumes', async () => {
  onTestFailed(() =>
    console.error(`npm start's output (access log left out):\n${outputWithoutAccessLog(proc, 12_000)}`),
  );
  const store = await createStore(base, env);
  const gifts: string[] = [];

  // Three gifts with processed videos: two delivered just before the outage (their sends and the
  // senders' notes run into it), one after it.
  for (const recipient of ['gift-1@example.com', 'gift-2@example.com', 'gift-3@example.com']) {
    const made = await store.api('POST', '/v1/orders', {
      name: 'Ann',
      email: 'ann@example.com',
      recipient_name: 'Bob',
      recipient_email: recipient,
    });
    gifts.push(made.body.id as string);
    expect((await store.api('PUT', `/v1/orders/${made.body.id}/video`, sampleVideo(), 'video/webm')).status).toBe(200);
  }
  await eventually(
    async () => {
      for (const id of gifts) if ((await store.api('GET', `/v1/orders/${id}`)).body.video_processed !== '1') return;
      return true;
    },
    60_000,
    'the videos processed',
  );

  const answers: Answer[] = [];
  const created = new Map<string, { key: string; body: Record<string, unknown>; prices: number[] }>();
  const failedPosts = new Map<string, Record<string, unknown>>();
  let load = true;
  const clients = Array.from({ length: 6 }, (_, i) =>
    client(store, `c${i}`, answers, created, failedPosts, () => load),
  );
  await eventually(async () => (created.size >= 6 ? true : undefined), 30_000, 'orders under load');
  for (const id of gifts.slice(0, 2))
    expect((await store.api('PUT', `/v1/orders/${id}`, { delivered: 1 })).status).toBe(200);

  await postgres.stop();
  const downFrom = Date.now();
  // Down long enough for every client to meet it several times, as a real restart of a loaded server would.
  await eventually(
    async () =>
      Date.now() - downFrom >= 3_000 && answers.filter((a) => a.at > downFrom && a.status === 503).length >= 12
        ? true
        : undefined,
    30_000,
    'requests meeting the outage',
  );
  const downUntil = Date.now();
  await postgres.start();
  // The third gift is delivered on the restarted server: its send is new work after the outage.
  expect((await store.api('PUT', `/v1/orders/${gifts[2]}`, { delivered: 1 })).status).toBe(200);
  const createdBeforeRecovery = created.size;
  await eventually(
    async () => (created.size >= createdBeforeRecovery + 6 ? true : undefined),
    60_000,
    'orders created after the restart',
  );
  load = false;
  await Promise.all(clients);

  // Never a 500 or any other answer: 2xx, or 503 with the JSON error and Retry-After.
  const unexpected = answers.filter((a) => ![200, 201, 503].includes(a.status));
  expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).toEqual([]);
  for (const answer of answers.filter((a) => a.status === 503)) {
    expect(answer.body.error, answer.what).toMatchObject({ type: 'service_unavailable' });
    expect(answer.retryAfter, answer.what).toMatch(/^\d+$/);
  }
  // While the server was down, nothing succeeded.
  const duringOutage = answers.filter((a) => a.at > downFrom + 200 && a.at < downUntil);
  expect(duringOutage.length).toBeGreaterThan(0);
  expect(duringOutage.filter((a) => a.status !== 503)).toEqual([]);

  // Every order a 201 announced is there whole: its fields, its last acknowledged price, its timeline.
  for (const [id, record] of created) {
    const got = await store.api('GET', `/v1/orders/${id}`);
    expect(got.status, id).toBe(200);
    const { price, ...fields } = record.body;
    expect(got.body).toMatchObject(fields);
    // A PUT the server committed may still have lost its answer in the outage: the stored price is
    // the last acknowledged one or a later attempt, never an earlier one.
    const acknowledged = record.prices.at(-1) ?? (price as number);
    expect(got.body.price as number, id).toBeGreaterThanOrEqual(acknowledged);
    const events = (await store.api('GET', `/v1/orders/${id}/events`)).body.data as { type: string }[];
    expect(events[0]?.type, id).toBe('order.created');
  }

  // A POST that failed, replayed with its key, creates its order once; a second replay finds it.
  expect(failedPosts.size).toBeGreaterThan(0);
  const replayed = new Set<string>();
  for (const [key, order] of failedPosts) {
    const first = await store.api('POST', '/v1/orders', order, 'application/json', { 'Idempotency-Key': key });
    expect(first.status, key).toBe(201);
    const again = await store.api('POST', '/v1/orders', order, 'application/json', { 'Idempotency-Key': key });
    expect(again.status, key).toBe(201);
    expect(again.headers.get('idempotent-replayed'), key).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(first.body).toMatchObject(order);
    replayed.add(first.body.id as string);
  }

  // No order exists that nobody was told about (a half-done create would show here).
  const listed = new Set<string>();
  for (let cursor: string | null = null; ;) {
    const page = await store.api('GET', `/v1/orders?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const order of page.body.data as { id: string }[]) listed.add(order.id);
    if (!page.body.has_more) break;
    cursor = page.body.next_cursor as string;
  }
  expect([...listed].sort()).toEqual([...gifts, ...created.keys(), ...replayed].sort());

  // Each gift reaches its recipient exactly once, and its order records it: a send whose provider
  // call straddled the outage waits for the database to record it (not `uncertain` minutes later).
  const to = (address: string) => mail.messages.filter((m) => m.to.includes(address));
  const giftRecipients = ['gift-1@example.com', 'gift-2@example.com', 'gift-3@example.com'];
  await eventually(async () => (giftRecipients.every((r) => to(r).length > 0) ? true : undefined), 60_000, 'gifts');
  await eventually(
    async () => {
      for (const id of gifts) if (!(await store.api('GET', `/v1/orders/${id}`)).body.sent_at) return;
      return true;
    },
    60_000,
    "the gifts' sent_at",
  );
  await eventually(
    async () => (to('ann@example.com').filter((m) => /was sent/i.test(m.raw)).length >= 3 ? true : undefined),
    30_000,
    "the senders' notes",
  );
  for (const recipient of giftRecipients) expect(to(recipient), recipient).toHaveLength(1);
  expect(to('ann@example.com').filter((m) => /was sent/i.test(m.raw))).toHaveLength(3);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
}, 240_000);
