import type { Updateable } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/database.ts';
import type { SendsTable } from '../../src/db/schema.ts';
import { createLogger } from '../../src/logger.ts';
import { SendDispatcher } from '../../src/notifications/dispatcher.ts';
import { createEmailChannel } from '../../src/notifications/email.ts';
import { compileMessageTemplates } from '../../src/notifications/messages/message-templates.ts';
import { createSmsChannel } from '../../src/notifications/sms.ts';
import { usingRealPostgres } from '../support/database.ts';
import { decodedMail } from '../support/mail-server.ts';
import { sampleVideo } from '../support/story.ts';
import { eventually } from '../support/workers.ts';
import { messagingTestAppOnClockForFile, type MessagingTestApp } from '../support/messaging-test-app.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

let app: TestApp;
let store: TestAccount;
let mail: MessagingTestApp['mail'];
let sms: MessagingTestApp['sms'];

const clock = messagingTestAppOnClockForFile('Maple & Thread', (started) => ({ store, app, mail, sms } = started));

const dispatch = () => app.services.dispatcher.dispatchDue(100);
const mailTo = (address: string) => mail.messages.filter((m) => m.to.includes(address));

async function recordedOrder(extra: Record<string, unknown> = {}) {
  const order = (await store.request('POST', '/v1/orders', { ...validOrder, ...extra })).body;
  await app.services.orders.markRecorded(order.id, { durationTenths: 100 });
  return order as { id: string; playback_url: string; recipient_email: string };
}

/** A recorded order whose package is delivered: its recipient's video is due now. */
async function deliveredOrder(extra: Record<string, unknown> = {}) {
  const order = await recordedOrder(extra);
  await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
  return order;
}

/**
 * A delivered order with a recorded video whose recipient's send row is then set to `left`: what
 * another worker holding it, or a process that died mid-send, leaves behind.
 */
async function deliveredWithSendLeft(left: Updateable<SendsTable>, extra: Record<string, unknown> = {}) {
  const order = await deliveredOrder(extra);
  await app.services.database.db
    .updateTable('sends')
    .set(left)
    .where('order_id', '=', order.id)
    .where('kind', '=', 'recipient_video')
    .execute();
  return order;
}

async function timeline(orderId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data;
}

describe('sending on delivery (send_trigger package)', () => {
  it('sends one e-mail with the playback link when the package is delivered, and notes the sender', async () => {
    const recipient = `r-${Date.now()}@example.com`;
    const order = await recordedOrder({ recipient_email: recipient });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);

    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    await dispatch();
    const messages = mailTo(recipient);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.raw).toContain(order.playback_url);
    expect(messages[0]!.raw).toMatch(/Subject: Ann Sender sent you a video message/);
    expect(messages[0]!.raw).toContain('Content-Type: text/html');
    // The store's name (the account's) signs the text part; the HTML part is checked in templates.test.ts.
    expect(messages[0]!.raw).toContain('=E2=80=94 Maple & Thread');

    const after = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(after.sent_at).toBe(after.delivered_at);
    expect(after.status).toBe('delivered');
    expect(mailTo('ann@example.com').some((m) => m.raw.includes('was sent'))).toBe(true);
    expect((await timeline(order.id)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['send.queued', 'video.sent', 'note.sent']),
    );
  });

  it('takes an address whose domain is internationalised as typed, and sends it to the domain’s ASCII form (API probe)', async () => {
    const handle = `anna-${Date.now()}`;
    const order = await recordedOrder({ recipient_email: `${handle}@bücher.de` });
    expect(order.recipient_email).toBe(`${handle}@bücher.de`);
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    // On the wire the domain is its ASCII form (RFC 5891), in the envelope and the To header; the test's
    // SMTP server (smtp-server) turns the envelope's back into Unicode, as it does for every address.
    const messages = mailTo(`${handle}@bücher.de`);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.raw).toMatch(new RegExp(`^To: ${handle}@xn--bcher-kva\\.de\\r?$`, 'm'));
    // The part before the @ must be ASCII: few mail servers take anything else.
    const refused = await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: 'josé@bücher.de' });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('must be a valid e-mail address');
  });

  it("shows the video's poster frame in the recipient's e-mail when the record page sent one", async () => {
    const recipient = `poster-${Date.now()}@example.com`;
    const created = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: recipient })).body;
    const order = await app.services.orders.get(store.id, created.id);
    const video = await app.services.videos.upload(order, {
      contentType: 'video/webm',
      body: sampleVideo(),
      source: 'system',
    });
    expect(await app.services.videos.process(video.id)).toBe('recorded');
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
      Buffer.alloc(100, 1),
      Buffer.from([0xff, 0xd9]),
    ]);
    await app.services.videos.attachPoster(order, video.id, jpeg);

    await store.request('PUT', `/v1/orders/${created.id}`, { delivered: 1 });
    await dispatch();
    const [message] = mailTo(recipient);
    expect(decodedMail(message!.raw)).toContain(`${created.playback_url}/email-poster.jpg`);
    // That page-drawn frame cannot be drawn on (it is not a whole JPEG): the plain poster answers.
    const poster = await app.request('GET', `${new URL(created.playback_url).pathname}/email-poster.jpg`);
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toBe('image/jpeg');
  });

  it("comes from the store by name, replies go to the store's contact address, and is drawn in its accent", async () => {
    const shop = await app.createAccount('Teal & Co');
    await shop.request('PUT', '/v1/account/settings', { contact_email: 'hello@teal.example', accent_color: '#1a5e63' });
    const recipient = `branded-${Date.now()}@example.com`;
    const order = (await shop.request('POST', '/v1/orders', { ...validOrder, recipient_email: recipient })).body;
    await app.services.orders.markRecorded(order.id, { durationTenths: 100 });
    await shop.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    const [message] = mailTo(recipient);
    expect(message!.raw).toMatch(/^From: "Teal & Co" <no-reply@doorstep\.localhost>$/m);
    expect(message!.raw).toMatch(/^Reply-To: hello@teal\.example$/m);
    const html = decodedMail(message!.raw);
    expect(html).toContain('#1a5e63');
    expect(html).not.toContain('#b4232a');
  });

  it('waits for the video when the package arrives first, saying so on the timeline, then sends', async () => {
    const recipient = `early-${Date.now()}@example.com`;
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: recipient })).body;
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    expect((await timeline(order.id)).find((e) => e.type === 'send.waiting')?.data.reason).toMatch(/video/);

    await app.services.orders.markRecorded(order.id, { durationTenths: 50 });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('never sends a cancelled or deleted order', async () => {
    const recipient = `gone-${Date.now()}@example.com`;
    const order = await deliveredOrder({ recipient_email: recipient });
    await store.request('DELETE', `/v1/orders/${order.id}`);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
  });
});

describe('other triggers', () => {
  it('sends at send_on for send_trigger date, not before', async () => {
    const recipient = `date-${Date.now()}@example.com`;
    const sendOn = new Date(clock.now().getTime() + 3_600_000);
    await recordedOrder({ recipient_email: recipient, send_trigger: 'date', send_on: sendOn.toISOString() });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    clock.advance(3_600_000);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('sends as soon as the video is processed for send_trigger now', async () => {
    const recipient = `now-${Date.now()}@example.com`;
    await recordedOrder({ recipient_email: recipient, send_trigger: 'now' });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });
});

describe('a queued message follows the order', () => {
  /** A recorded order whose recipient's message is queued for a date years away. */
  const queuedForLater = (fields: Record<string, unknown>) =>
    recordedOrder({ send_trigger: 'date', send_on: '2030-12-24T09:00:00Z', ...fields });

  it('moves when the trigger changes from a future date to now', async () => {
    const recipient = `moved-${Date.now()}@example.com`;
    const order = await queuedForLater({ recipient_email: recipient });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    await store.request('PUT', `/v1/orders/${order.id}`, { send_trigger: 'now' });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('is withdrawn, with a reason, when the trigger changes to package before delivery', async () => {
    const recipient = `withdrawn-${Date.now()}@example.com`;
    const order = await queuedForLater({ recipient_email: recipient });
    await store.request('PUT', `/v1/orders/${order.id}`, { send_trigger: 'package' });
    expect((await timeline(order.id)).find((e) => e.type === 'send.withdrawn')?.data.reason).toMatch(/not delivered/);
    clock.advance(5 * 366 * 24 * 3_600_000);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('drops a channel the send_method no longer uses', async () => {
    const recipient = `switch-${Date.now()}@example.com`;
    const order = await queuedForLater({
      recipient_email: recipient,
      recipient_phone: '+14155550177',
      send_method: 'email_and_sms',
    });
    await store.request('PUT', `/v1/orders/${order.id}`, { send_method: 'sms', send_trigger: 'now' });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    expect(sms.messages.filter((m) => m.to === '+14155550177')).toHaveLength(1);
  });
});

describe('stopping an order while it sends', () => {
  it('cancels a claimed message before it reaches the provider', async () => {
    const recipient = `claimed-cancel-${Date.now()}@example.com`;
    const order = await deliveredWithSendLeft(
      { status: 'claimed', claimed_at: clock.now(), claim_token: 'other-worker' },
      { recipient_email: recipient },
    );
    expect((await store.request('DELETE', `/v1/orders/${order.id}`)).status).toBe(204);
    const row = await app.services.database.db
      .selectFrom('sends')
      .select('status')
      .where('order_id', '=', order.id)
      .where('kind', '=', 'recipient_video')
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
  });

  it('refuses to stop an order whose video is being handed to the provider right now (409), changing nothing', async () => {
    const order = await deliveredWithSendLeft({
      status: 'sending',
      claimed_at: clock.now(),
      claim_token: 'other-worker',
    });
    const response = await store.request('DELETE', `/v1/orders/${order.id}`);
    expect(response.status).toBe(409);
    expect(response.body.error.message).toMatch(/being sent/);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).status).toBe(200);
  });
});

describe('SMS', () => {
  it('sends both channels for email_and_sms', async () => {
    const recipient = `both-${Date.now()}@example.com`;
    const order = await deliveredOrder({
      recipient_email: recipient,
      recipient_phone: '+14155550100',
      send_method: 'email_and_sms',
    });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
    expect(sms.messages.filter((m) => m.to === '+14155550100')).toHaveLength(1);
    expect(sms.messages[0]!.body).toContain(order.playback_url);
    expect(sms.messages[0]!.body).toMatch(/^Maple & Thread: Ann Sender sent you a video message/);
    expect(sms.messages[0]!.from).toBe('+15005550006');
  });

  it('marks an invalid phone as a failed send with the reason, and resends once the number is fixed', async () => {
    sms.markInvalid('+14155550999');
    const order = await deliveredOrder({ recipient_email: null, recipient_phone: '+14155550999', send_method: 'sms' });
    await dispatch();
    const failed = (await timeline(order.id)).find((e) => e.type === 'send.failed');
    expect(failed?.data.reason).toMatch(/21211/);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at).toBeNull();

    await store.request('PUT', `/v1/orders/${order.id}`, { recipient_phone: '+14155550123' });
    const resend = await store.request('POST', `/v1/orders/${order.id}/resend`);
    expect(resend.status).toBe(200);
    await dispatch();
    expect(sms.messages.filter((m) => m.to === '+14155550123')).toHaveLength(1);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at).not.toBeNull();
    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(409);
  });
});

describe('failures are visible and retried correctly', () => {
  it('fails for good on a permanent SMTP rejection (550), with the reason on the timeline', async () => {
    const recipient = `bounce-${Date.now()}@example.com`;
    mail.rejectRecipient(recipient, 550);
    const order = await deliveredOrder({ recipient_email: recipient });
    await dispatch();
    clock.advance(3_600_000);
    await dispatch();
    const failures = (await timeline(order.id)).filter((e) => e.type === 'send.failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.data.reason).toMatch(/550/);
  });

  it('retries a temporary SMTP refusal (451) with backoff and then sends once', async () => {
    const recipient = `greylist-${Date.now()}@example.com`;
    mail.rejectRecipient(recipient, 451, 1);
    const order = await deliveredOrder({ recipient_email: recipient });
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    expect((await timeline(order.id)).some((e) => e.type === 'send.retry_scheduled')).toBe(true);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    clock.advance(31_000);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });
});

describe('exactly once', () => {
  // On real PostgreSQL (CI's second pass) the six dispatchers have pools of their own and race for
  // real. On PGlite their statements interleave one at a time, which still catches a claim that
  // takes more than one statement (read, then update) — the mistake this guards against.
  it('sends once when several dispatchers race for the same due message', async () => {
    const recipient = `race-${Date.now()}@example.com`;
    await deliveredOrder({ recipient_email: recipient });

    // Separate dispatchers, as in separate worker processes; on real PostgreSQL each has its own pool.
    const handles = usingRealPostgres
      ? await Promise.all(Array.from({ length: 6 }, () => openPostgres(app.databaseUrl!)))
      : [];
    const logger = createLogger('silent');
    const templates = await compileMessageTemplates();
    const channels = Array.from({ length: 6 }, () =>
      createEmailChannel({ smtpUrl: mail.url, from: 'Doorstep <d@example.com>', outboxDir: '/nonexistent', logger }),
    );
    const dispatchers = Array.from(
      { length: 6 },
      (_, i) =>
        new SendDispatcher({
          db: handles[i]?.db ?? app.services.database.db,
          orders: app.services.orders,
          email: channels[i]!,
          sms: createSmsChannel({ provider: null, outboxDir: '/nonexistent', logger }),
          templates,
          publicUrl: 'https://doorstep.test',
          logger,
          now: clock.now,
        }),
    );
    try {
      await Promise.all(dispatchers.flatMap((d) => [d.dispatchDue(5), d.dispatchDue(5)]));
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      for (const channel of channels) channel.close?.();
    }
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('a crash mid-send becomes "uncertain" with a reason and is not re-sent until the merchant asks', async () => {
    const recipient = `crash-${Date.now()}@example.com`;
    // What a process killed during the SMTP conversation leaves behind.
    const order = await deliveredWithSendLeft(
      { status: 'sending', claimed_at: clock.now(), claim_token: 'dead-process' },
      { recipient_email: recipient },
    );
    clock.advance(10 * 60_000);
    const reconciled = await app.services.dispatcher.reconcileStuck();
    expect(reconciled.uncertain).toBeGreaterThanOrEqual(1);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    expect((await timeline(order.id)).find((e) => e.type === 'send.uncertain')?.data.reason).toMatch(
      /re-sent only if the provider says it never got it/,
    );

    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(200);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('a crash after the provider accepted but before the order recorded it is repaired, never re-sent', async () => {
    const recipient = `accepted-${Date.now()}@example.com`;
    // What a process killed right after the provider's acceptance leaves behind: the row is sent,
    // the order does not know yet.
    const order = await deliveredWithSendLeft(
      {
        status: 'sent',
        sent_at: clock.now(),
        provider_message_id: 'accepted-before-crash',
        claim_token: 'dead-process',
      },
      { recipient_email: recipient },
    );
    // Not re-sent, not "uncertain", and resend refuses: the row is the truth.
    clock.advance(10 * 60_000);
    expect((await app.services.dispatcher.reconcileStuck()).uncertain).toBe(0);
    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(409);

    await app.services.dispatcher.reconcile();
    const repaired = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(repaired.sent_at).not.toBeNull();
    expect((await timeline(order.id)).filter((e) => e.type === 'video.sent')).toHaveLength(1);
    await app.services.dispatcher.reconcile();
    expect((await timeline(order.id)).filter((e) => e.type === 'video.sent')).toHaveLength(1);
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    // The sender's note follows from the repaired order, once.
    const notes = await app.services.database.db
      .selectFrom('sends')
      .select('status')
      .where('order_id', '=', order.id)
      .where('kind', '=', 'sender_sent_note')
      .execute();
    expect(notes).toEqual([{ status: 'sent' }]);
  });

  it('a crash after claiming but before calling the provider is retried safely', async () => {
    const recipient = `claimed-${Date.now()}@example.com`;
    await deliveredWithSendLeft(
      { status: 'claimed', claimed_at: clock.now(), claim_token: 'dead-process' },
      { recipient_email: recipient },
    );
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(0);
    clock.advance(5 * 60_000);
    await app.services.dispatcher.reconcileStuck();
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
  });

  it('cannot queue a second live send for the same order and channel, whatever calls it', async () => {
    const order = await deliveredOrder();
    const db = app.services.database.db;
    const insert = db.insertInto('sends').values({
      id: `snd_dup_${Date.now()}`,
      order_id: order.id,
      account_id: store.id,
      kind: 'recipient_video',
      channel: 'email',
      status: 'pending',
      due_at: clock.now(),
      created_at: clock.now(),
      updated_at: clock.now(),
    });
    await expect(insert.execute()).rejects.toThrow();
  });

  it('marks a sent video recorded once its order records it, and repairs one a crash left unrecorded', async () => {
    const db = app.services.database.db;
    const recordedFlag = async (orderId: string) =>
      (
        await db
          .selectFrom('sends')
          .select(['id', 'order_recorded'])
          .where('order_id', '=', orderId)
          .where('kind', '=', 'recipient_video')
          .executeTakeFirstOrThrow()
      ).order_recorded;

    const sent = await deliveredOrder();
    await dispatch();
    await eventually(async () => ((await recordedFlag(sent.id)) ? true : undefined), 5_000, 'the send marked recorded');

    // The process stopped after the provider took the message and the row said so, before the order did.
    const crashed = await deliveredWithSendLeft({
      status: 'sent',
      sent_at: new Date(clock.now().getTime() - 120_000),
      provider_message_id: 'pm-1',
    });
    expect(await recordedFlag(crashed.id)).toBe(false);
    expect(await app.services.dispatcher.recordUnrecordedSends()).toBe(1);
    expect((await store.request('GET', `/v1/orders/${crashed.id}`)).body.sent_at).not.toBeNull();
    await eventually(
      async () => ((await recordedFlag(crashed.id)) ? true : undefined),
      5_000,
      'the send marked recorded',
    );
    expect(await app.services.dispatcher.recordUnrecordedSends()).toBe(0);
  });

  it("sends a delivered gift's video before a backlog of sender e-mails that were due earlier", async () => {
    // A burst of new orders queues a sender e-mail each; the gift delivered meanwhile must not wait
    // behind them (the dispatcher claims recipients' videos first, migration 026).
    const db = app.services.database.db;
    const backlog: string[] = [];
    for (let i = 0; i < 3; i++) {
      const other = await recordedOrder();
      const id = `snd_backlog_${Date.now()}_${i}`;
      backlog.push(id);
      await db
        .insertInto('sends')
        .values({
          id,
          order_id: other.id,
          account_id: store.id,
          kind: 'sender_viewed_note',
          channel: 'email',
          status: 'pending',
          due_at: new Date(clock.now().getTime() - 3_600_000),
          created_at: clock.now(),
          updated_at: clock.now(),
        })
        .execute();
    }
    const recipient = `first-${Date.now()}@example.com`;
    await deliveredOrder({ recipient_email: recipient });

    expect(await app.services.dispatcher.dispatchDue(1)).toBe(1);
    expect(mailTo(recipient)).toHaveLength(1);
    const stillWaiting = await db.selectFrom('sends').select('status').where('id', 'in', backlog).execute();
    expect(stillWaiting.map((row) => row.status)).toEqual(['pending', 'pending', 'pending']);

    await dispatch();
    const after = await db.selectFrom('sends').select('status').where('id', 'in', backlog).execute();
    expect(after.every((row) => row.status !== 'pending')).toBe(true);
  });
});

describe('while webhook intake is pressed (holdOthers)', () => {
  /** A pending sender e-mail of a recorded order, due `minutesAgo` minutes ago. */
  async function senderNoteDue(minutesAgo: number) {
    const order = await recordedOrder();
    const id = `snd_held_${Date.now()}_${minutesAgo}`;
    await app.services.database.db
      .insertInto('sends')
      .values({
        id,
        order_id: order.id,
        account_id: store.id,
        kind: 'sender_viewed_note',
        channel: 'email',
        status: 'pending',
        due_at: new Date(clock.now().getTime() - minutesAgo * 60_000),
        created_at: clock.now(),
        updated_at: clock.now(),
      })
      .execute();
    return id;
  }
  const statusOf = async (id: string) =>
    (await app.services.database.db.selectFrom('sends').select('status').where('id', '=', id).executeTakeFirstOrThrow())
      .status;

  it("sends recipients' videos and what waited over 5 minutes, holds the rest until the intake eases", async () => {
    const fresh = await senderNoteDue(1);
    const overdue = await senderNoteDue(6);
    const recipient = `held-${Date.now()}@example.com`;
    await deliveredOrder({ recipient_email: recipient });

    await app.services.dispatcher.dispatchDue(100, { holdOthers: true });
    expect(mailTo(recipient)).toHaveLength(1);
    expect(await statusOf(overdue)).toBe('sent');
    expect(await statusOf(fresh)).toBe('pending');

    await app.services.dispatcher.dispatchDue(100);
    expect(await statusOf(fresh)).toBe('sent');
  });

  it("claims recipients' videos only up to the claim's size, then nothing held", async () => {
    const overdue = await senderNoteDue(10);
    const recipients = [`full-a-${Date.now()}@example.com`, `full-b-${Date.now()}@example.com`];
    for (const recipient of recipients) await deliveredOrder({ recipient_email: recipient });

    expect(await app.services.dispatcher.dispatchDue(2, { holdOthers: true })).toBe(2);
    for (const recipient of recipients) expect(mailTo(recipient)).toHaveLength(1);
    expect(await statusOf(overdue)).toBe('pending');
    await app.services.dispatcher.dispatchDue(100, { holdOthers: true });
    expect(await statusOf(overdue)).toBe('sent');
  });
});

describe('resending to a corrected address', () => {
  it('sends once to the new address, keeps the old send on record, and never twice to one address', async () => {
    const wrong = `wrong-${Date.now()}@example.com`;
    const right = `right-${Date.now()}@example.com`;
    const order = await deliveredOrder({ recipient_email: wrong });
    await dispatch();
    expect(mailTo(wrong)).toHaveLength(1);
    const sentAt = (await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at;
    // Sent to the address the order had: asking again changes nothing.
    const again = await store.request('POST', `/v1/orders/${order.id}/resend`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already sent to the recipient's current address/);

    await store.request('PUT', `/v1/orders/${order.id}`, { recipient_email: right });
    await dispatch();
    expect(mailTo(right)).toHaveLength(0); // an edit alone never re-sends
    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(200);
    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(409); // a double click
    await dispatch();
    await dispatch();
    expect(mailTo(right)).toHaveLength(1);
    expect(mailTo(wrong)).toHaveLength(1);
    expect((await store.request('POST', `/v1/orders/${order.id}/resend`)).status).toBe(409);

    const sends = await app.services.database.db
      .selectFrom('sends')
      .select(['status', 'destination'])
      .where('order_id', '=', order.id)
      .where('kind', '=', 'recipient_video')
      .execute();
    // Both made at one instant of the test clock, so no column orders them: compare as a set.
    expect(sends).toHaveLength(2);
    expect(sends).toEqual(
      expect.arrayContaining([
        { status: 'replaced', destination: wrong },
        { status: 'sent', destination: right },
      ]),
    );
    const after = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect(after.sent_at).toBe(sentAt); // first sent stays the order's sent_at
    const types = (await timeline(order.id)).map((e) => e.type);
    expect(types.filter((t) => t === 'video.sent')).toHaveLength(2);
    expect(types.filter((t) => t === 'send.resend_requested')).toHaveLength(1);
    // The sender was told once that the video went out.
    const notes = await app.services.database.db
      .selectFrom('sends')
      .select('status')
      .where('order_id', '=', order.id)
      .where('kind', '=', 'sender_sent_note')
      .execute();
    expect(notes).toHaveLength(1);
  });
});

describe('the sender hears back', () => {
  it('gets a note when the recipient first watches the video, once', async () => {
    const sender = `sender-${Date.now()}@example.com`;
    const order = await recordedOrder({ email: sender });
    await app.services.orders.markViewed(order.id);
    await dispatch();
    expect(mailTo(sender).filter((m) => m.raw.includes('watched your video message'))).toHaveLength(0);
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await dispatch();
    await app.services.orders.markViewed(order.id);
    await app.services.orders.markViewed(order.id);
    await dispatch();
    const notes = mailTo(sender).filter((m) => m.raw.includes('watched your video message'));
    expect(notes).toHaveLength(1);
  });
});
