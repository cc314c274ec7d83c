import { describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { sampleVideo } from '../../src/videos/sample-video.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, type VideoTestApp } from '../videos/video-test-app.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';
import { thanksTestAppForFile, type MailServer } from './thanks-test-app.ts';

/**
 * The thank-you reply's rules on real PGlite, real HTTP and a real SMTP server, processing and
 * dispatch run by hand: the undo window, one reply and one e-mail, the order
 * without a sender e-mail, billing, and erasure.
 */
let app: VideoTestApp;
let store: TestAccount;
let mail: MailServer;
const clock = new TestClock();

thanksTestAppForFile({ queue: 'manual', clock, sendDelaySeconds: 300 }, (started) => ({ app, store, mail } = started));

const dispatch = () => app.services.dispatcher.dispatchDue(100);
const types = async (orderId: string): Promise<string[]> =>
  (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data.map((e: { type: string }) => e.type);
const note = (uuid: string, text: unknown) =>
  app.request('PUT', `/watch/${uuid}/thanks/note`, { body: { note: text } });
/** The order's thank-you reply, as stored. */
const replyOf = (orderId: string) =>
  app.services.database.db.selectFrom('thanks').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
/** The recipient's reply video, sent from the watch page in one request: the id it was queued under. */
async function replyVideo(uuid: string): Promise<string> {
  await sendInOneRequest(app, `/watch/${uuid}/thanks/uploads`, fixture('recorded-vp8-opus.webm'), 'video/webm');
  return app.enqueued.at(-1)!;
}

async function sentGift(
  extra: Record<string, unknown> = {},
): Promise<{ id: string; uuid: string; playback_url: string }> {
  const order = (await store.request('POST', '/v1/orders', { ...validOrder, ...extra })).body;
  await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
    'Content-Type': 'video/webm',
  });
  expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
  await dispatch();
  expect((await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at).not.toBeNull();
  return order;
}

describe('the thank-you reply', () => {
  it('is refused before the gift reached the recipient, and bad notes are 4xx, never 500', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect((await note(order.uuid, 'Thanks!')).status).toBe(409);
    const sent = await sentGift();
    expect((await note(sent.uuid, '   ')).status).toBe(422);
    expect((await note(sent.uuid, 'x'.repeat(1001))).status).toBe(422);
    expect((await note(sent.uuid, 42)).status).toBe(422);
    expect(
      (
        await app.request('PUT', `/watch/${sent.uuid}/thanks/note`, {
          rawBody: '{',
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect((await app.request('GET', '/thanks/not-a-key')).status).toBe(404);
  });

  it('can be replaced until the e-mail leaves after the delay; then it is final and sent once', async () => {
    const sender = `ann-${Date.now()}@example.com`;
    const order = await sentGift({ email: sender });
    expect((await note(order.uuid, 'Thanks!')).status).toBe(200);
    await dispatch();
    const toSender = () => mail.messages.filter((m) => m.to.includes(sender) && m.raw.includes('thank-you'));
    expect(toSender()).toHaveLength(0); // the undo window
    expect((await note(order.uuid, 'Thank you so much!')).status).toBe(200);
    clock.advance(301_000);
    await dispatch();
    await dispatch();
    expect(toSender()).toHaveLength(1);
    expect(toSender()[0]!.raw).toContain('Thank you so much!');
    expect(toSender()[0]!.raw).not.toContain('"Thanks!"');
    expect((await note(order.uuid, 'Once more')).status).toBe(409);
    const timeline = await types(order.id);
    expect(timeline.filter((t) => t === 'thanks.recorded')).toHaveLength(2);
    expect(timeline.filter((t) => t === 'thanks.sent')).toHaveLength(1);
  });

  it('keeps a note written while the reply video was processing: the newest reply stands', async () => {
    const order = await sentGift();
    const videoId = await replyVideo(order.uuid);
    clock.advance(1_000);
    expect((await note(order.uuid, 'Words after all')).status).toBe(200);
    expect(await app.videos.process(videoId)).toBe('superseded');
    const reply = await replyOf(order.id);
    expect(reply).toMatchObject({ reply: 'note', note: 'Words after all', video_id: null });
  });

  it('leaves the sent reply whole when a replacement finishes processing after the e-mail left', async () => {
    const sender = `late-${Date.now()}@example.com`;
    const order = await sentGift({ email: sender });
    const first = await replyVideo(order.uuid);
    expect(await app.videos.process(first)).toBe('recorded');
    const late = await replyVideo(order.uuid); // accepted: the e-mail has not left yet
    clock.advance(301_000);
    await dispatch();
    expect(mail.messages.filter((m) => m.to.includes(sender) && m.raw.includes('thank-you'))).toHaveLength(1);
    expect(await app.videos.process(late)).toBe('order_cancelled');
    // The video the sender's e-mail and page show is still there, and plays.
    const reply = await replyOf(order.id);
    expect(reply.video_id).toBe(first);
    expect((await app.request('GET', `/thanks/${reply.key}`)).status).toBe(200);
    expect((await app.request('GET', `/thanks/${reply.key}/video`)).status).toBe(200);
  });

  it('says on the timeline why it cannot go when the order has no sender e-mail', async () => {
    const order = await sentGift();
    await app.services.database.db.updateTable('orders').set({ email: '' }).where('id', '=', order.id).execute();
    expect((await note(order.uuid, 'Thanks!')).status).toBe(200);
    expect(await types(order.id)).toContain('thanks.not_sent');
    const page = await app.request('GET', `/watch/${order.uuid}`);
    expect(page.text).toContain('the store has no e-mail address for Ann Sender');
  });

  it('is not billed again: the order stays one line of its statement', async () => {
    const order = await sentGift({ price: 1000 });
    expect((await note(order.uuid, 'Thanks!')).status).toBe(200);
    const month = clock.now().toISOString().slice(0, 7);
    const statement = (await store.request('GET', `/v1/billing/statements/${month}`)).body;
    expect(JSON.stringify(statement).split(order.id).length - 1).toBe(1);
  });

  it('refuses a reply video longer than THANKS_MAX_SECONDS (60 s by default) and keeps the gift as it was', async () => {
    const order = await sentGift();
    const reply = async (seconds: number) =>
      sendInOneRequest(app, `/watch/${order.uuid}/thanks/uploads`, await sampleVideo(seconds), 'video/mp4');
    const fittingAnswer = await reply(60.5);
    expect(fittingAnswer.status).toBe(201);
    const fitting = app.enqueued.at(-1)!;
    // The page follows the reply's preparation (probe finding: it said "sent" even when it failed).
    const state = async (answer: { body: { status_url?: string } }) =>
      (await app.request('GET', answer.body.status_url!)).body;
    expect(fittingAnswer.body.status_url).toBe(`/watch/${order.uuid}/thanks/videos/${fitting}`);
    expect(await state(fittingAnswer)).toEqual({ status: 'processing' });
    expect(await app.videos.process(fitting)).toBe('recorded');
    expect(await state(fittingAnswer)).toMatchObject({ status: 'ready' });
    const tooLong = await reply(62.5);
    expect(tooLong.status).toBe(201);
    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('failed');
    expect(await state(tooLong)).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/1:02 long; .* up to 1:00/),
    });
    // Another order's watch link cannot read this one's reply, nor the gift's status route the reply.
    const other = await sentGift();
    expect((await app.request('GET', `/watch/${other.uuid}/thanks/videos/${fitting}`)).status).toBe(404);
    expect((await app.request('GET', `/record/${order.uuid}/videos/${fitting}`)).status).toBe(404);
    const failed = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data.filter(
      (e: { type: string }) => e.type === 'video.processing_failed',
    );
    expect(failed.at(-1)?.data.reason).toMatch(/1:02 long; .* up to 1:00/);
    // The gift still plays; the reply that stands is the one that fit.
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.video_processed).toBe('1');
    const db = app.services.database.db;
    const stands = await db.selectFrom('thanks').select('video_id').where('order_id', '=', order.id).executeTakeFirst();
    expect(stands?.video_id).toBe(fitting);
  });

  it('is erased with the order: the note, the reply video and its files, and the sender link', async () => {
    const order = await sentGift();
    const videoId = await replyVideo(order.uuid);
    const db = app.services.database.db;
    const video = await db.selectFrom('videos').selectAll().where('id', '=', videoId).executeTakeFirstOrThrow();
    expect(video.purpose).toBe('thanks');
    expect((await note(order.uuid, 'Thanks!')).status).toBe(200);
    const reply = await replyOf(order.id);
    const senderPage = await app.request('GET', `/thanks/${reply.key}`);
    expect(senderPage.status).toBe(200);
    // The sender reads the recipient's note: it is labelled as theirs, not "Your note".
    expect(senderPage.text).toMatch(/<blockquote class="note" id="thanks-note" aria-label="Note from [^"]+">Thanks!</);
    expect(senderPage.text).not.toContain('Your note');
    // Not a dead end: the sender's own gift again, and (a Shopify shop's) the store.
    expect(senderPage.text).toContain(`id="watch-gift" href="${order.playback_url}"`);
    expect(senderPage.text).not.toContain('id="visit-store"');
    await db
      .insertInto('shops')
      .values({
        domain: `thanks-${Date.now()}.myshopify.com`,
        account_id: store.id,
        installed_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    expect((await app.request('GET', `/thanks/${reply.key}`)).text).toMatch(
      /id="visit-store" href="https:\/\/thanks-\d+\.myshopify\.com">Visit /,
    );

    await app.services.orders.erasePersonalData(order.id, 'shopify', 'customers/redact');
    expect(await db.selectFrom('thanks').selectAll().where('order_id', '=', order.id).execute()).toEqual([]);
    expect(await db.selectFrom('videos').selectAll().where('order_id', '=', order.id).execute()).toEqual([]);
    await expect(app.storage.get(video.storage_key)).rejects.toThrow();
    expect((await app.request('GET', `/thanks/${reply.key}`)).status).toBe(404);
  });
});
