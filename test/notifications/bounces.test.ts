import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { orderContexts } from '../../src/shopify/admin/order-reads.ts';
import { attentionReason, deriveStage } from '../../src/shopify/admin/stage.ts';
import { describeTimelineEntry } from '../../src/shopify/admin/timeline-words.ts';
import { fakePostmark } from '../support/fake-postmark.ts';
import { fakeSendgrid } from '../support/fake-sendgrid.ts';
import { startFakeSes } from '../support/fake-ses.ts';
import type { ReceivedMail } from '../support/mail-server.ts';
import { startMessagingTestApp, type MessagingTestApp } from '../support/messaging-test-app.ts';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

/*
 * Issue 14, "No message lost after it left": an e-mail the provider accepted bounces later. Each
 * provider's webhook, fed by a local fake that posts (and signs) events as the provider documents,
 * after a real send through the in-process SMTP server.
 */
let messaging: MessagingTestApp;
let app: TestApp;
let store: TestAccount;
let mail: MessagingTestApp['mail'];
let sms: MessagingTestApp['sms'];
let ses: Awaited<ReturnType<typeof startFakeSes>>;
const sendgrid = fakeSendgrid();
const postmarkCredentials = { username: 'postmark-hook', password: 'a-long-webhook-password' };
const postmark = fakePostmark(postmarkCredentials);
const url = (provider: 'postmark' | 'ses' | 'sendgrid') => `${app.baseUrl}/webhooks/email/${provider}`;
let sequence = 0;

beforeAll(async () => {
  ses = await startFakeSes();
  messaging = await startMessagingTestApp({
    env: {
      POSTMARK_WEBHOOK_USERNAME: postmarkCredentials.username,
      POSTMARK_WEBHOOK_PASSWORD: postmarkCredentials.password,
      SES_SNS_TOPIC_ARNS: ses.topicArn,
      // The production default stays first; the fake's origin is allowed for this app only.
      SES_SNS_CERT_HOSTS: `sns.*.amazonaws.com,${ses.origin}`,
      SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey,
    },
  });
  ({ app, mail, sms } = messaging);
  store = await app.createAccount('Maple & Thread');
});
afterAll(async () => {
  await messaging?.close();
  await ses?.close();
});
beforeEach(() => messaging.clearMessages());

const dispatch = () => app.services.dispatcher.dispatchDue(100);
const db = () => app.services.database.db;

/** A delivered order whose video went to the recipient by e-mail; the message as the SMTP server took it. */
async function sentByEmail(extra: Record<string, unknown> = {}) {
  const recipient = `bounce-${++sequence}-${Date.now()}@example.com`;
  const created = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: recipient, ...extra }))
    .body as { id: string };
  await app.services.orders.markRecorded(created.id, { durationTenths: 100 });
  await store.request('PUT', `/v1/orders/${created.id}`, { delivered: 1 });
  await dispatch();
  await dispatch();
  const message = mail.messages.find((m) => m.to.includes(recipient));
  expect(message).toBeDefined();
  const messageIdHeader = /^Message-ID:\s*(<[^>]+>)/im.exec(message!.raw)![1]!;
  mail.messages.length = 0;
  return { orderId: created.id, recipient, message: message as ReceivedMail, messageIdHeader };
}

async function recipientSend(orderId: string) {
  return db()
    .selectFrom('sends')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('kind', '=', 'recipient_video')
    .where('channel', '=', 'email')
    .executeTakeFirstOrThrow();
}

async function timeline(orderId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data;
}

const storedEvents = async () =>
  Number(
    (
      await db()
        .selectFrom('email_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** After the bounce: the send failed, the timeline says so without the address, the sender was e-mailed, the merchant sees it. */
async function expectBounceTold(
  order: Awaited<ReturnType<typeof sentByEmail>>,
  expected: { provider: string; bounceType: string },
) {
  const send = await eventually(async () => {
    const row = await recipientSend(order.orderId);
    return row.status === 'failed' ? row : undefined;
  });
  expect(send.bounced_at).not.toBeNull();
  expect(send.last_error).not.toContain(order.recipient);

  const entries = (await timeline(order.orderId)).filter((e) => e.type === 'send.bounced');
  expect(entries).toHaveLength(1);
  expect(entries[0]!.data).toMatchObject({
    kind: 'recipient_video',
    channel: 'email',
    provider: expected.provider,
    bounce_type: expected.bounceType,
  });
  expect(JSON.stringify(entries[0])).not.toContain('@');

  // The sender hears of a bounce by e-mail, once; of a spam complaint not at all (the message
  // arrived: "it did not arrive" would be false).
  await dispatch();
  const notes = mail.messages.filter((m) => m.to.includes(validOrder.email));
  if (expected.bounceType === 'complaint') expect(notes).toHaveLength(0);
  else {
    expect(notes).toHaveLength(1);
    expect(notes[0]!.raw).toMatch(/Subject: Your video message to Bob Recipient did not arrive/);
  }
  expect(entries[0]!.data.sender_told).toBe(expected.bounceType !== 'complaint');
  // The provider's body named the address; once applied, it is gone.
  const bodies = await db()
    .selectFrom('email_events')
    .select('body')
    .where('send_id', '=', send.id)
    .where('processed_at', 'is not', null)
    .execute();
  expect(bodies.length).toBeGreaterThan(0);
  expect(bodies.every((row) => row.body === null)).toBe(true);

  // The merchant: the admin's stage and words, from the same rows.
  const row = await app.services.orders.get(store.id, order.orderId);
  const [context] = await orderContexts(db(), [row]);
  expect(deriveStage(context!.facts)).toBe('needs_attention');
  expect(attentionReason(context!.facts)).toMatch(expected.bounceType === 'complaint' ? /spam/ : /bounced/);
  const words = describeTimelineEntry({ type: 'send.bounced', source: 'system', data: entries[0]!.data });
  expect(words.title).toMatch(expected.bounceType === 'complaint' ? /spam/ : /bounced/);
}

describe('Postmark', () => {
  it('holds a bounce that arrives before the send is recorded as sent, and applies it once it is', async () => {
    const order = await sentByEmail();
    const send = await recipientSend(order.orderId);
    // The provider answered while our own "sent" had not committed yet (a database blip, a fast drop).
    await db().updateTable('sends').set({ status: 'sending' }).where('id', '=', send.id).execute();
    const record = postmark.bounce({
      messageId: randomUUID(),
      email: order.recipient,
      metadata: postmark.metadataOf(order.message.raw),
    });
    expect((await postmark.post(url('postmark'), record)).status).toBe(200);
    await app.services.emailEvents.processPending();
    expect((await recipientSend(order.orderId)).status).toBe('sending');
    const pending = await db()
      .selectFrom('email_events')
      .select('processed_at')
      .where('event_key', '=', `Bounce:${record.ID}`)
      .executeTakeFirstOrThrow();
    expect(pending.processed_at).toBeNull();

    await db().updateTable('sends').set({ status: 'sent' }).where('id', '=', send.id).execute();
    await app.services.emailEvents.processPending();
    await expectBounceTold(order, { provider: 'postmark', bounceType: 'hard_bounce' });
  });

  it('finds the send by the metadata every e-mail carries, when Postmark names the message by an id of its own', async () => {
    const order = await sentByEmail();
    const metadata = postmark.metadataOf(order.message.raw);
    expect(Object.keys(metadata).map((key) => key.toLowerCase())).toEqual(['doorstep_send_id']);
    const answer = await postmark.post(
      url('postmark'),
      postmark.bounce({ messageId: randomUUID(), email: order.recipient, metadata }),
    );
    expect(answer.status).toBe(200);
    await expectBounceTold(order, { provider: 'postmark', bounceType: 'hard_bounce' });
  });

  it('a hard bounce fails the send, tells the sender and the merchant; resend goes by SMS to the phone', async () => {
    const order = await sentByEmail({ recipient_phone: '+14155550123' });
    // Postmark names the message by the id its SMTP server answered with.
    const answer = await postmark.post(
      url('postmark'),
      postmark.bounce({ messageId: order.message.queueId, email: order.recipient }),
    );
    expect(answer.status).toBe(200);
    await expectBounceTold(order, { provider: 'postmark', bounceType: 'hard_bounce' });

    // Resend by another channel: the order's send method is e-mail, but the address bounced.
    const resent = await store.request('POST', `/v1/orders/${order.orderId}/resend`);
    expect(resent.status).toBe(200);
    await dispatch();
    expect(sms.messages.filter((m) => m.to === '+14155550123')).toHaveLength(1);
    expect(mail.messages.filter((m) => m.to.includes(order.recipient))).toHaveLength(0);
    // Once out again, a second resend has nothing to send.
    expect((await store.request('POST', `/v1/orders/${order.orderId}/resend`)).status).toBe(409);
  });

  it('refuses a resend to the address that bounced when there is no phone, saying what to do', async () => {
    const order = await sentByEmail();
    await postmark.post(
      url('postmark'),
      postmark.spamComplaint({ messageId: order.message.queueId, email: order.recipient }),
    );
    await expectBounceTold(order, { provider: 'postmark', bounceType: 'complaint' });
    const refused = await store.request('POST', `/v1/orders/${order.orderId}/resend`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/bounced.*Correct the recipient's e-mail, or add their phone number/);
  });

  it('answers 401 to wrong credentials and stores nothing', async () => {
    const order = await sentByEmail();
    const before = await storedEvents();
    const wrong = `Basic ${Buffer.from(`${postmarkCredentials.username}:not-the-password`).toString('base64')}`;
    const answer = await postmark.post(
      url('postmark'),
      postmark.bounce({ messageId: order.message.queueId, email: order.recipient }),
      { authorization: wrong },
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error.type).toBe('unauthorized');
    expect(await storedEvents()).toBe(before);
    expect((await recipientSend(order.orderId)).status).toBe('sent');
  });

  it('records a soft bounce without failing the send', async () => {
    const order = await sentByEmail();
    const record = postmark.bounce({ messageId: order.message.queueId, email: order.recipient, type: 'SoftBounce' });
    expect((await postmark.post(url('postmark'), record)).status).toBe(200);
    const row = await eventually(async () => {
      const event = await db()
        .selectFrom('email_events')
        .selectAll()
        .where('event_key', '=', `Bounce:${record.ID}`)
        .executeTakeFirst();
      return event?.processed_at ? event : undefined;
    });
    expect(row.outcome).toBe('recorded');
    expect((await recipientSend(order.orderId)).status).toBe('sent');
  });

  it('answers 400 with a JSON error to a body that is not a Postmark record', async () => {
    const before = await storedEvents();
    const notJson = await postmark.post(url('postmark'), null, { rawBody: '{"RecordType": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.type).toBe('invalid_json');
    const noMessage = await postmark.post(url('postmark'), { RecordType: 'Bounce', ID: 1 });
    expect(noMessage.status).toBe(400);
    expect(noMessage.body.error.type).toBe('invalid_event');
    expect(await storedEvents()).toBe(before);
  });
});

describe('Amazon SES through SNS', () => {
  it('confirms the subscription, then a permanent bounce fails the send', async () => {
    const confirmation = ses.subscriptionConfirmation('token-1');
    expect((await ses.post(url('ses'), confirmation)).status).toBe(200);
    expect(ses.confirmations).toContain('token-1');

    const order = await sentByEmail();
    const notification = ses.bounce({
      sesMessageId: order.message.queueId,
      messageIdHeader: order.messageIdHeader,
      email: order.recipient,
    });
    expect((await ses.post(url('ses'), notification)).status).toBe(200);
    await expectBounceTold(order, { provider: 'ses', bounceType: 'hard_bounce' });
  });

  it('applies a notification SNS delivers twice once', async () => {
    const order = await sentByEmail();
    const notification = ses.complaint({
      sesMessageId: 'not-the-queue-id',
      messageIdHeader: order.messageIdHeader,
      email: order.recipient,
    });
    expect((await ses.post(url('ses'), notification)).status).toBe(200);
    expect((await ses.post(url('ses'), notification)).status).toBe(200);
    await expectBounceTold(order, { provider: 'ses', bounceType: 'complaint' });
    const rows = await db()
      .selectFrom('email_events')
      .selectAll()
      .where('event_key', '=', notification.MessageId)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 401 to a signature SNS did not make, or a certificate from a host that is not Amazon', async () => {
    const order = await sentByEmail();
    const before = await storedEvents();
    const forged = ses.envelope(
      {
        Type: 'Notification',
        Message: JSON.parse(
          JSON.stringify(
            ses.bounce({ sesMessageId: 'x', messageIdHeader: order.messageIdHeader, email: order.recipient }),
          ),
        ).Message,
      },
      ses.strangerKey,
    );
    expect((await ses.post(url('ses'), forged)).status).toBe(401);
    const elsewhere = ses.envelope({
      Type: 'Notification',
      Message: '{}',
      SigningCertURL: 'https://sns.us-east-1.amazonaws.com.evil.test/cert.pem',
    });
    expect((await ses.post(url('ses'), elsewhere)).status).toBe(401);
    // Signed by SNS, but for a topic that is not ours.
    const otherTopic = ses.envelope({
      Type: 'Notification',
      Message: '{}',
      TopicArn: 'arn:aws:sns:us-east-1:999999999999:other',
    });
    expect((await ses.post(url('ses'), otherTopic)).status).toBe(403);
    expect(await storedEvents()).toBe(before);
    expect((await recipientSend(order.orderId)).status).toBe('sent');
  });

  it('answers 400 to a body that is not an SNS message', async () => {
    const answer = await ses.post(url('ses'), '{"Type":"Notification"}');
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('invalid_event');
  });
});

describe('SendGrid', () => {
  it('a signed bounce fails the send; a deferral in the same batch is only recorded; a redelivery adds nothing', async () => {
    const order = await sentByEmail();
    const target = { smtpId: order.messageIdHeader, email: order.recipient };
    const batch = [sendgrid.delivered(target), sendgrid.deferred(target), sendgrid.bounce(target)];
    expect((await sendgrid.post(url('sendgrid'), batch)).status).toBe(200);
    expect((await sendgrid.post(url('sendgrid'), batch)).status).toBe(200);
    await expectBounceTold(order, { provider: 'sendgrid', bounceType: 'hard_bounce' });
    const rows = await db()
      .selectFrom('email_events')
      .select(['outcome'])
      .where('provider', '=', 'sendgrid')
      .where(
        'event_key',
        'in',
        batch.map((event) => event.sg_event_id),
      )
      .execute();
    expect(rows.map((row) => row.outcome).sort()).toEqual(['recorded', 'recorded', 'send_failed']);
  });

  it('answers 401 to a batch signed with another key or changed after signing, and stores nothing', async () => {
    const order = await sentByEmail();
    const before = await storedEvents();
    const batch = [sendgrid.bounce({ smtpId: order.messageIdHeader, email: order.recipient })];
    expect((await sendgrid.post(url('sendgrid'), batch, { signWith: sendgrid.strangerKey })).status).toBe(401);
    expect((await sendgrid.post(url('sendgrid'), batch, { tamper: true })).status).toBe(401);
    expect(await storedEvents()).toBe(before);
    expect((await recipientSend(order.orderId)).status).toBe('sent');
  });

  it('answers 400 to a signed body that is not an event batch', async () => {
    const answer = await sendgrid.post(url('sendgrid'), { event: 'bounce' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('invalid_event');
  });

  it('stores an event about a message that is not ours and changes nothing', async () => {
    const event = sendgrid.bounce({ smtpId: '<someone-else@example.net>', email: 'stranger@example.net' });
    expect((await sendgrid.post(url('sendgrid'), [event])).status).toBe(200);
    const row = await eventually(async () => {
      const stored = await db()
        .selectFrom('email_events')
        .selectAll()
        .where('event_key', '=', event.sg_event_id)
        .executeTakeFirst();
      return stored?.processed_at ? stored : undefined;
    });
    expect(row.outcome).toBe('unknown_message');
  });
});

describe('a provider that is not configured', () => {
  it('has no webhook: 404', async () => {
    const bare = await startTestApp();
    try {
      for (const provider of ['postmark', 'ses', 'sendgrid'])
        expect((await bare.request('POST', `/webhooks/email/${provider}`, { body: [] })).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
