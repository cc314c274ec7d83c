import { describe, expect, it } from 'vitest';
import { NOT_WATCHED_AFTER_MS } from '../../src/notifications/not-watched.ts';
import { decodedMail } from '../support/mail-server.ts';
import { messagingTestAppOnClockForFile, type MessagingTestApp } from '../support/messaging-test-app.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually, startTestWorkers } from '../support/workers.ts';

/**
 * Issue 14: three days after the recipient's video was sent, a sender whose recipient has not
 * watched gets one gentle note — by SMS when the order has the sender's phone, else by e-mail — when
 * the store's setting is on; otherwise the timeline says why not. Real PGlite, SMTP and SMS API;
 * the clock is moved by hand.
 */

let app: TestApp;
let store: TestAccount;
let mail: MessagingTestApp['mail'];
let sms: MessagingTestApp['sms'];

const clock = messagingTestAppOnClockForFile('Maple & Thread', (started) => ({ store, app, mail, sms } = started));

const decide = () => app.services.notWatched.decideDue();
const dispatch = () => app.services.dispatcher.dispatchDue(100);
const mailTo = (address: string) => mail.messages.filter((m) => m.to.includes(address));
const smsTo = (phone: string) => sms.messages.filter((m) => m.to === phone);

/** An order whose video reached the recipient now (clock time); returns it. */
async function sentOrder(extra: Record<string, unknown> = {}, account: TestAccount = store) {
  const order = (
    await account.request('POST', '/v1/orders', {
      ...validOrder,
      recipient_name: 'Grandpa Joe',
      recipient_email: `r-${Math.random().toString(36).slice(2)}@example.com`,
      ...extra,
    })
  ).body as { id: string; email: string };
  await app.services.orders.markRecorded(order.id, { durationTenths: 100 });
  expect((await account.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 })).status).toBe(200);
  await dispatch();
  expect((await account.request('GET', `/v1/orders/${order.id}`)).body.sent_at).not.toBeNull();
  return order;
}

async function timeline(orderId: string, account: TestAccount = store) {
  return (await account.request('GET', `/v1/orders/${orderId}/events`)).body.data as Array<{
    type: string;
    data: Record<string, unknown>;
  }>;
}

const notWatchedEntries = async (orderId: string, account?: TestAccount) =>
  (await timeline(orderId, account)).filter((e) => e.type === 'note.not_watched').map((e) => e.data);

describe('the not-watched note', () => {
  it('texts the sender once, three days after sending, when the order has their phone', async () => {
    const senderPhone = '+14155550199';
    const order = await sentOrder({ sender_phone: '+1 (415) 555-0199' });

    clock.advance(NOT_WATCHED_AFTER_MS - 60_000);
    expect(await decide()).toBe(0);
    await dispatch();
    expect(smsTo(senderPhone)).toHaveLength(0);

    clock.advance(2 * 60_000);
    expect(await decide()).toBe(1);
    await dispatch();
    const texts = smsTo(senderPhone);
    expect(texts).toHaveLength(1);
    expect(texts[0]!.body).toMatch(/^Maple & Thread: Grandpa hasn't watched your video/);
    expect(mailTo(order.email).filter((m) => m.raw.includes("hasn't watched"))).toHaveLength(0);
    expect(await notWatchedEntries(order.id)).toEqual([{ outcome: 'queued', channel: 'sms' }]);
    expect((await timeline(order.id)).map((e) => e.type)).toContain('note.sent');

    // Exactly once: later ticks find nothing to decide and nothing to send.
    clock.advance(NOT_WATCHED_AFTER_MS);
    expect(await decide()).toBe(0);
    await dispatch();
    expect(smsTo(senderPhone)).toHaveLength(1);
  });

  it('sends no "waiting unseen" note when the video never reached the recipient (its send failed)', async () => {
    const senderPhone = '+14155550166';
    const order = await sentOrder({ sender_phone: senderPhone });
    // As a bounce leaves it (test/notifications/bounces.test.ts): the recipient's send failed.
    await app.services.database.db
      .updateTable('sends')
      .set({ status: 'failed', last_error: 'the e-mail bounced' })
      .where('order_id', '=', order.id)
      .where('kind', '=', 'recipient_video')
      .execute();
    clock.advance(NOT_WATCHED_AFTER_MS + 60_000);
    expect(await decide()).toBe(1);
    await dispatch();
    expect(smsTo(senderPhone)).toHaveLength(0);
    expect(await notWatchedEntries(order.id)).toEqual([
      { outcome: 'recipient_unreachable', reason: expect.stringContaining('did not reach the recipient') },
    ]);
  });

  it('is cancelled, with the reason, when the recipient watches between the decision and the send', async () => {
    const senderPhone = '+14155550177';
    const order = await sentOrder({ sender_phone: senderPhone });
    clock.advance(NOT_WATCHED_AFTER_MS + 60_000);
    expect(await decide()).toBe(1);
    // The view commits while the decision's transaction is still open, so the view's own withdrawal
    // cannot see the queued note: the row is all that is left of that race.
    await app.services.database.db
      .updateTable('orders')
      .set({ viewed_at: clock.now() })
      .where('id', '=', order.id)
      .execute();
    await dispatch();
    expect(smsTo(senderPhone)).toHaveLength(0);
    const note = await app.services.database.db
      .selectFrom('sends')
      .select(['status', 'last_error'])
      .where('order_id', '=', order.id)
      .where('kind', '=', 'sender_not_watched_note')
      .executeTakeFirstOrThrow();
    expect(note.status).toBe('cancelled');
    expect(note.last_error).toBeTruthy();
    expect((await timeline(order.id)).filter((e) => e.type === 'send.cancelled')).toHaveLength(1);
  });

  it("e-mails the sender when the order has no sender phone, naming the store and the recipient's first name", async () => {
    const sender = `ann-${Date.now()}@example.com`;
    const logo = 'https://cdn.maplethread.example/logo.png';
    expect((await store.request('PUT', '/v1/account/settings', { logo_url: logo })).status).toBe(200);
    const order = await sentOrder({ email: sender });
    clock.advance(NOT_WATCHED_AFTER_MS);
    expect(await decide()).toBe(1);
    await dispatch();
    const notes = mailTo(sender).filter((m) =>
      m.raw.includes("Subject: Grandpa hasn't watched your video message yet"),
    );
    expect(notes).toHaveLength(1);
    const text = decodedMail(notes[0]!.raw);
    expect(text).toContain('contact Maple & Thread');
    // The store's logo from its settings heads the e-mail, named by the store.
    expect(text).toMatch(/<img[^>]+alt="Maple &amp; Thread"[^>]+src="https:\/\/cdn.maplethread.example\/logo.png"/);
    expect(await notWatchedEntries(order.id)).toEqual([{ outcome: 'queued', channel: 'email' }]);
  });

  it('sends nothing when the recipient watched, and says so on the timeline', async () => {
    const sender = `watched-${Date.now()}@example.com`;
    const order = await sentOrder({ email: sender, sender_phone: '+14155550198' });
    await app.services.orders.markViewed(order.id);
    await dispatch();
    clock.advance(NOT_WATCHED_AFTER_MS);
    expect(await decide()).toBe(1);
    await dispatch();
    expect(smsTo('+14155550198')).toHaveLength(0);
    expect(mailTo(sender).filter((m) => m.raw.includes("hasn't watched"))).toHaveLength(0);
    expect(await notWatchedEntries(order.id)).toEqual([
      { outcome: 'already_watched', reason: 'the recipient has watched the video' },
    ]);
  });

  it('withdraws a queued note when the recipient watches before it goes', async () => {
    const sender = `late-watch-${Date.now()}@example.com`;
    const order = await sentOrder({ email: sender });
    clock.advance(NOT_WATCHED_AFTER_MS);
    expect(await decide()).toBe(1);
    await app.services.orders.markViewed(order.id);
    await dispatch();
    expect(mailTo(sender).filter((m) => m.raw.includes("hasn't watched"))).toHaveLength(0);
    expect((await timeline(order.id)).find((e) => e.type === 'send.cancelled')?.data).toEqual({
      kind: 'sender_not_watched_note',
      reason: 'the recipient watched the video',
    });
  });

  it("respects the store's setting: off means no note, with the reason recorded", async () => {
    const quiet = await app.createAccount('Quiet store');
    expect((await quiet.request('PUT', '/v1/account/settings', { not_watched_note: false })).status).toBe(200);
    const sender = `quiet-${Date.now()}@example.com`;
    const order = await sentOrder({ email: sender, sender_phone: '+14155550197' }, quiet);
    clock.advance(NOT_WATCHED_AFTER_MS);
    expect(await decide()).toBe(1);
    await dispatch();
    expect(smsTo('+14155550197')).toHaveLength(0);
    expect(mailTo(sender).filter((m) => m.raw.includes("hasn't watched"))).toHaveLength(0);
    expect(await notWatchedEntries(order.id, quiet)).toEqual([
      { outcome: 'setting_off', reason: 'the store turned the not-watched note off' },
    ]);
  });

  it('does not look at orders whose video was never sent', async () => {
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, sender_phone: '+14155550196' })).body;
    clock.advance(NOT_WATCHED_AFTER_MS * 2);
    expect(await decide()).toBe(0);
    expect(await notWatchedEntries(order.id)).toEqual([]);
  });

  it('runs on the workers’ send dispatch tick', async () => {
    const senderPhone = '+14155550195';
    const order = await sentOrder({ sender_phone: senderPhone });
    clock.advance(NOT_WATCHED_AFTER_MS);
    const workers = await startTestWorkers(app.services, { dispatchEveryMs: 200 });
    try {
      await eventually(async () => (smsTo(senderPhone).length > 0 ? true : undefined), 10_000, 'the note by SMS');
    } finally {
      await workers.close();
    }
    expect(smsTo(senderPhone)).toHaveLength(1);
    expect(await notWatchedEntries(order.id)).toEqual([{ outcome: 'queued', channel: 'sms' }]);
  });
});
