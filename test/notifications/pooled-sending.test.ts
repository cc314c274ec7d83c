import { describe, expect, it } from 'vitest';
import { dispatchWhileDue } from '../../jobs/dispatch-sends.ts';
import { messagingTestAppOnClockForFile, type MessagingTestApp } from '../support/messaging-test-app.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * A backlog goes out over a few pooled SMTP connections, several messages at a time, each exactly
 * once (issue 11: sending keeps pace with a burst). The app runs with the default
 * SMTP_MAX_CONNECTIONS (5) against a real SMTP server and the Twilio-format fake.
 */
let app: TestApp;
let store: TestAccount;
let mail: MessagingTestApp['mail'];
let sms: MessagingTestApp['sms'];

messagingTestAppOnClockForFile('Pooled Store', (started) => ({ store, app, mail, sms } = started));

/** What one run of the dispatch job does (jobs/dispatch-sends.ts), with a budget that never ends it early. */
const dispatchRun = () => dispatchWhileDue(app.services.dispatcher, 60_000);

/** Delivered orders whose recipient's video is due now (by e-mail, or e-mail and SMS). */
async function deliveredOrders(tag: string, count: number, extra: Record<string, unknown> = {}) {
  const orders: Array<{ id: string; recipient: string; sender: string; phone: string }> = [];
  for (let i = 0; i < count; i++) {
    const recipient = `${tag}-r${i}@example.com`;
    const sender = `${tag}-s${i}@example.com`;
    const phone = `+1415555${String(1000 + i)}`;
    const body = { ...validOrder, email: sender, recipient_email: recipient, recipient_phone: phone, ...extra };
    const order = (await store.request('POST', '/v1/orders', body)).body as { id: string };
    await app.services.orders.markRecorded(order.id, { durationTenths: 100 });
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    orders.push({ id: order.id, recipient, sender, phone });
  }
  return orders;
}

const mailTo = (address: string) => mail.messages.filter((m) => m.to.includes(address));

async function sendsOf(orderId: string) {
  return app.services.database.db
    .selectFrom('sends')
    .select(['kind', 'channel', 'status', 'last_error'])
    .where('order_id', '=', orderId)
    .execute();
}

describe('a backlog of due sends', () => {
  it('goes out exactly once each, over a few pooled connections', async () => {
    const orders = await deliveredOrders('pool', 30);
    const connectionsBefore = mail.connectionCount();
    // 30 recipients' videos; each, once accepted, queues a "was sent" note to its sender, due at once.
    while ((await dispatchRun()) > 0);
    for (const order of orders) {
      expect(mailTo(order.recipient)).toHaveLength(1);
      expect(mailTo(order.sender)).toHaveLength(1);
      expect(await sendsOf(order.id)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'recipient_video', channel: 'email', status: 'sent' }),
          expect.objectContaining({ kind: 'sender_sent_note', channel: 'email', status: 'sent' }),
        ]),
      );
    }
    expect(mail.messages).toHaveLength(60);
    // One connection per e-mail before the pool; now at most SMTP_MAX_CONNECTIONS, reused.
    const opened = mail.connectionCount() - connectionsBefore;
    expect(opened).toBeGreaterThanOrEqual(1);
    expect(opened).toBeLessThanOrEqual(5);
  });

  it('does not wait for a slow message: the rest of its claim goes out meanwhile', async () => {
    const orders = await deliveredOrders('slow', 8);
    const held = mail.holdMessageTo(orders[0]!.recipient);
    const run = dispatchRun();
    await held.arrived;
    // The first recipient's video waits for the server's answer. One message at a time, nothing
    // else of the claim could leave until it came; now the other lanes carry the rest.
    await expect
      .poll(() => orders.slice(1).every((order) => mailTo(order.recipient).length === 1), { timeout: 20_000 })
      .toBe(true);
    expect(mailTo(orders[0]!.recipient)).toHaveLength(0);
    held.release();
    await run;
    while ((await dispatchRun()) > 0);
    for (const order of orders) expect(mailTo(order.recipient)).toHaveLength(1);
  });

  it('fails only the permanently refused message of a concurrent batch', async () => {
    const orders = await deliveredOrders('reject', 10);
    const refused = orders[3]!;
    mail.rejectRecipient(refused.recipient, 550);
    while ((await dispatchRun()) > 0);
    expect(mailTo(refused.recipient)).toHaveLength(0);
    expect(await sendsOf(refused.id)).toEqual([
      expect.objectContaining({
        kind: 'recipient_video',
        status: 'failed',
        last_error: expect.stringMatching(/550/) as unknown,
      }),
    ]);
    for (const order of orders.filter((o) => o !== refused)) {
      expect(mailTo(order.recipient)).toHaveLength(1);
      expect((await sendsOf(order.id)).filter((s) => s.status !== 'sent')).toEqual([]);
    }
  });

  it('sends e-mail and SMS of many orders at once, each exactly once', async () => {
    const orders = await deliveredOrders('both', 12, { send_method: 'email_and_sms' });
    while ((await dispatchRun()) > 0);
    for (const order of orders) {
      expect(mailTo(order.recipient)).toHaveLength(1);
      expect(sms.messages.filter((m) => m.to === order.phone)).toHaveLength(1);
      const sent = await app.services.orders.get(store.id, order.id);
      expect(sent.sent_at).not.toBeNull();
    }
    expect(sms.messages).toHaveLength(12);
  });
});

describe('one dispatch run', () => {
  it('keeps claiming while messages are due until its time is up, then leaves the rest for the next run', async () => {
    const orders = await deliveredOrders('budget', 30);
    // A budget already spent: the run still finishes the claim it started (25 of the 30 videos).
    expect(await dispatchWhileDue(app.services.dispatcher, 0)).toBe(25);
    expect(orders.filter((order) => mailTo(order.recipient).length === 1)).toHaveLength(25);
    // With time left it goes on past one claim, until a claim comes back short: the last five
    // videos first, the 25 "was sent" notes the first run queued, and the five the videos queue.
    expect(await dispatchWhileDue(app.services.dispatcher, 60_000)).toBe(35);
    expect(await dispatchWhileDue(app.services.dispatcher, 60_000)).toBe(0);
    for (const order of orders) expect(mailTo(order.recipient)).toHaveLength(1);
  });
});
