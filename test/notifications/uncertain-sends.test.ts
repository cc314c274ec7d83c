import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { createEmailChannel } from '../../src/notifications/email.ts';
import { createSmsChannel } from '../../src/notifications/sms.ts';
import { playbackUrl } from '../../src/orders/serializer.ts';
import { TestClock } from '../support/clock.ts';
import { fakeSendgrid } from '../support/fake-sendgrid.ts';
import { startFakeSmsApi } from '../support/fake-sms.ts';
import { startMailServer } from '../support/mail-server.ts';
import { eventually } from '../support/workers.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from '../shopify/harness.ts';
import { sessionToken } from '../shopify/session-token.ts';

/*
 * Issue 31, item 9: a send whose process died mid-call (`uncertain`) settles itself where the
 * provider can say — a SendGrid event for our Message-ID, Twilio's Message list — and otherwise the
 * merchant is alerted once: the embedded admin's "needs attention" and one e-mail to the store owner.
 * Real parts only: the in-process SMTP server, the Twilio-format fake over HTTP, SendGrid's signed
 * webhook, the embedded admin's JSON over HTTP. "The process died mid-call" is what such a process
 * leaves: the provider got the message (or not) from a channel of its own, the row says `sending`.
 */
let app: ShopifyTestApp;
let close: (() => Promise<void>) | undefined;
let mail: Awaited<ReturnType<typeof startMailServer>>;
let sms: Awaited<ReturnType<typeof startFakeSmsApi>>;
const clock = new TestClock(new Date().toISOString());
const sendgrid = fakeSendgrid();
const OWNER = 'owner@maple-thread.example';
let shop: string;
let auth: string;

beforeAll(async () => {
  mail = await startMailServer();
  sms = await startFakeSmsApi(undefined, { now: clock.now });
  ({ app, close } = await startShopifyTestAppWithFakeShopify({
    now: clock.now,
    env: { SMTP_URL: mail.url, ...sms.env, SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey },
  }));
  shop = `uncertain-${randomBytes(4).toString('hex')}.myshopify.com`;
  ({ auth } = await app.addShop(shop));
  expect((await admin('GET', '/home')).status).toBe(200);
  expect((await admin('PUT', '/settings', { contact_email: OWNER })).status).toBe(200);
});
afterAll(async () => {
  await close?.();
  await mail?.close();
  await sms?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect JSON
type Json = any;

async function call(path: string, method: string, authorization: string, body?: unknown) {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { Authorization: authorization, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}
const admin = (method: string, path: string, body?: unknown) =>
  call(`/shopify/api${path}`, method, `Bearer ${sessionToken(shop, API_KEY, SECRET)}`, body);
const v1 = (method: string, path: string, body?: unknown) => call(path, method, auth, body);

const db = () => app.services.database.db;
const dispatch = () => app.services.dispatcher.dispatchDue(100);
const reconcile = () => app.services.dispatcher.reconcile();
const mailTo = (address: string) => mail.messages.filter((m) => m.to.includes(address));
const smsTo = (number: string) => sms.messages.filter((m) => m.to === number);
let sequence = 0;

/** A recorded, delivered order whose recipient video is queued, not yet sent. */
async function deliveredOrder(fields: Record<string, unknown>) {
  const created = await v1('POST', '/v1/orders', {
    name: 'Ann Sender',
    email: 'ann@example.com',
    recipient_name: 'Bob Recipient',
    ...fields,
  });
  expect(created.status).toBe(201);
  const orderId: string = created.body.id;
  await app.services.orders.markRecorded(orderId, { durationTenths: 52 });
  expect((await v1('PUT', `/v1/orders/${orderId}`, { delivered: 1 })).status).toBe(200);
  const send = await db()
    .selectFrom('sends')
    .select(['id'])
    .where('order_id', '=', orderId)
    .where('kind', '=', 'recipient_video')
    .executeTakeFirstOrThrow();
  const { uuid } = await db().selectFrom('orders').select('uuid').where('id', '=', orderId).executeTakeFirstOrThrow();
  return { orderId, sendId: send.id, playback: playbackUrl(app.services.config.publicUrl, uuid) };
}

/** What a dispatcher killed during the provider call leaves: the row in `sending`, its clock started now. */
async function diedMidCall(sendId: string, destination: string) {
  await db()
    .updateTable('sends')
    .set({ status: 'sending', destination, claimed_at: clock.now(), claim_token: 'dead-process', attempts: 1 })
    .where('id', '=', sendId)
    .execute();
}

/** An SMS channel of its own to the Twilio-format fake, on the app's account and number: another process sending. */
function anotherSmsChannel() {
  return createSmsChannel({
    provider: {
      baseUrl: sms.url,
      accountSid: sms.credentials.sid,
      authToken: sms.credentials.token,
      from: sms.env.SMS_FROM,
    },
    outboxDir: '/nonexistent',
    logger: createLogger('silent'),
  });
}

async function sendRow(sendId: string) {
  return db().selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
}
async function timeline(orderId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return (await v1('GET', `/v1/orders/${orderId}/events`)).body.data;
}

/** Past the reconciler's "stuck in sending" limit: the send is declared uncertain and resolution starts. */
async function crashRecovered() {
  clock.advance(6 * 60_000);
  await reconcile();
}

describe('an uncertain send the provider can vouch for', () => {
  it('an e-mail the provider reports (SendGrid, by our Message-ID) becomes sent and is never sent again', async () => {
    const recipient = `seen-${++sequence}@example.com`;
    const { orderId, sendId } = await deliveredOrder({ recipient_email: recipient });
    // The dead process's SMTP call did reach the provider.
    const deadProcess = createEmailChannel({
      smtpUrl: mail.url,
      from: 'Doorstep <gifts@doorstep.test>',
      outboxDir: '/nonexistent',
      logger: createLogger('silent'),
    });
    await deadProcess.send({
      to: recipient,
      subject: 'A video',
      text: 'x',
      html: 'x',
      messageId: `<${sendId}@doorstep>`,
    });
    deadProcess.close?.();
    await diedMidCall(sendId, recipient);
    await crashRecovered();
    expect((await sendRow(sendId)).status).toBe('uncertain');

    const event = sendgrid.delivered({ smtpId: `<${sendId}@doorstep>`, email: recipient });
    expect((await sendgrid.post(`${app.baseUrl}/webhooks/email/sendgrid`, [event])).status).toBe(200);
    await eventually(async () => ((await sendRow(sendId)).status === 'sent' ? true : undefined), 10_000, 'sent');
    const resolved = (await timeline(orderId)).find((e) => e.type === 'send.resolved');
    expect(resolved?.data).toMatchObject({ outcome: 'sent', channel: 'email', provider: 'sendgrid' });
    expect(resolved?.data.reason).toMatch(/reported the message \(delivered\)/);

    // The order records it (crash repair), nothing goes out again, and nobody is alerted.
    await reconcile();
    expect((await v1('GET', `/v1/orders/${orderId}`)).body.sent_at).not.toBeNull();
    clock.advance(60 * 60_000);
    await reconcile();
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
    expect(mailTo(OWNER).filter((m) => m.raw.includes(orderId))).toHaveLength(0);
    expect((await resendRefusal(orderId)).status).toBe(409);
  });

  it("an SMS in Twilio's Message list becomes sent, with Twilio's SID, and is not sent again", async () => {
    const phone = `+1415555${String(1000 + ++sequence)}`;
    const { orderId, sendId, playback } = await deliveredOrder({ recipient_phone: phone, send_method: 'sms' });
    const deadProcess = anotherSmsChannel();
    const { providerMessageId } = await deadProcess.send({
      to: phone,
      body: `Bob, a video: ${playback}`,
      reference: sendId,
    });
    await diedMidCall(sendId, phone);
    await crashRecovered();

    const row = await sendRow(sendId);
    expect(row.status).toBe('sent');
    expect(row.provider_message_id).toBe(providerMessageId);
    expect((await timeline(orderId)).find((e) => e.type === 'send.resolved')?.data).toMatchObject({
      outcome: 'sent',
      channel: 'sms',
    });
    expect((await v1('GET', `/v1/orders/${orderId}`)).body.sent_at).not.toBeNull();
    await dispatch();
    await reconcile();
    await dispatch();
    expect(smsTo(phone)).toHaveLength(1);
  });
});

describe('an uncertain send the provider never got', () => {
  it('an SMS Twilio has no message for is sent again, once', async () => {
    const phone = `+1415555${String(2000 + ++sequence)}`;
    const { orderId, sendId, playback } = await deliveredOrder({ recipient_phone: phone, send_method: 'sms' });
    const lookupsBefore = sms.lookups();
    await diedMidCall(sendId, phone);
    await crashRecovered();
    expect(sms.lookups()).toBeGreaterThan(lookupsBefore);
    expect((await timeline(orderId)).find((e) => e.type === 'send.resolved')?.data).toMatchObject({
      outcome: 'resent',
      channel: 'sms',
    });

    await dispatch();
    await dispatch();
    expect(smsTo(phone)).toHaveLength(1);
    expect(smsTo(phone)[0]!.body).toContain(playback);
    expect((await sendRow(sendId)).status).toBe('sent');
    clock.advance(60 * 60_000);
    await reconcile();
    await dispatch();
    expect(smsTo(phone)).toHaveLength(1);
  });

  it('an SMS Twilio cannot tell apart (another message to that number then) is not guessed at: the merchant is asked', async () => {
    const phone = `+1415555${String(3000 + ++sequence)}`;
    const { orderId, sendId } = await deliveredOrder({ recipient_phone: phone, send_method: 'sms' });
    // Someone else's message to the same number, from our number, while our call was open.
    const other = anotherSmsChannel();
    await other.send({ to: phone, body: 'Your order has shipped.', reference: 'other' });
    await diedMidCall(sendId, phone);
    await crashRecovered();
    expect((await sendRow(sendId)).status).toBe('uncertain');
    expect((await sendRow(sendId)).attention_at).not.toBeNull();
    await dispatch();
    expect(smsTo(phone)).toHaveLength(1); // only the other message
    expect((await timeline(orderId)).find((e) => e.type === 'send.attention')?.data.reason).toMatch(/cannot tell/);
  });
});

async function resendRefusal(orderId: string) {
  return admin('POST', `/orders/${orderId}/resend`);
}

describe('an uncertain send nobody can vouch for', () => {
  it('waits for the provider, then alerts the merchant once (admin + one owner e-mail); a resend from there sends once', async () => {
    const recipient = `silent-${++sequence}@example.com`;
    const { orderId, sendId } = await deliveredOrder({ recipient_email: recipient });
    await diedMidCall(sendId, recipient);
    await crashRecovered();
    // SendGrid's events may still tell: no alert yet.
    expect((await sendRow(sendId)).attention_at).toBeNull();
    expect(mailTo(OWNER).filter((m) => m.raw.includes(orderId))).toHaveLength(0);

    clock.advance(30 * 60_000);
    await reconcile();
    await reconcile();
    const row = await sendRow(sendId);
    expect(row.status).toBe('uncertain');
    expect(row.attention_at).not.toBeNull();
    const ownerMail = await eventually(
      async () => {
        const found = mailTo(OWNER).filter((m) => m.raw.includes(orderId));
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the owner e-mail',
    );
    clock.advance(60 * 60_000);
    await reconcile();
    expect(mailTo(OWNER).filter((m) => m.raw.includes(orderId))).toHaveLength(1);
    expect(ownerMail[0]!.raw).toMatch(/Needs attention/);
    expect(ownerMail[0]!.raw).not.toContain(recipient);
    const attention = (await timeline(orderId)).filter((e) => e.type === 'send.attention');
    expect(attention).toHaveLength(1);
    expect(attention[0]!.data).toMatchObject({ channel: 'email', owner_emailed: true });

    // The embedded admin lists it under "needs attention", with Resend on.
    const list = await admin('GET', '/orders?stage=needs_attention');
    expect(list.status).toBe(200);
    const summary = list.body.data.find((o: Json) => o.id === orderId);
    expect(summary?.stage).toBe('needs_attention');
    expect(summary?.attention).toMatch(/not known whether the video reached the recipient/);
    const detail = await admin('GET', `/orders/${orderId}`);
    expect(detail.body.actions.resend).toBe(true);
    expect(detail.body.timeline.map((e: Json) => e.title)).toContain(
      'Please check whether the message went out by e-mail',
    );

    // One click: sent once, and the order is no longer in the list.
    expect((await admin('POST', `/orders/${orderId}/resend`)).status).toBe(200);
    await dispatch();
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
    expect((await admin('POST', `/orders/${orderId}/resend`)).status).toBe(409);
    await reconcile();
    await dispatch();
    expect(mailTo(recipient)).toHaveLength(1);
    const after = await admin('GET', '/orders?stage=needs_attention');
    expect(after.body.data.some((o: Json) => o.id === orderId)).toBe(false);
  });
});
