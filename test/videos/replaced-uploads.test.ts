import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimDueSends, startSending } from '../../src/notifications/sends.ts';
import { ALREADY_SENT_REASON } from '../../src/videos/service.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from './video-test-app.ts';

/**
 * Issue 13 item 7: replaced uploads leave storage once the newer one is processed, and erasure
 * removes every file of an order. Listing the storage after the story finds only live videos.
 */
let app: VideoTestApp;
let store: TestAccount;
let directory: string;

beforeAll(async () => {
  app = await startVideoTestApp({ queue: 'manual' });
  store = await app.createAccount('Replaced uploads');
  const storage = app.services.config.videos.storage;
  if (storage.kind !== 'local') throw new Error('this test lists local storage');
  directory = storage.directory;
});
afterAll(async () => {
  await app?.close();
});

const filesOf = (orderId: string) => {
  const dir = path.join(directory, orderId);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};
const upload = (orderId: string, name: string, type: string) =>
  store.request('PUT', `/v1/orders/${orderId}/video`, fixture(name), { 'Content-Type': type });

it('keeps only the standing video: older and failed uploads go once a newer one is processed', async () => {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  expect((await upload(order.id, 'recorded-vp8-opus.webm', 'video/webm')).status).toBe(200);
  expect((await upload(order.id, 'recorded-avc1-opus.mp4', 'video/mp4')).status).toBe(200);
  expect(filesOf(order.id)).toHaveLength(4); // two videos, each with its sidecar
  for (const id of app.enqueued.splice(0)) await app.videos.process(id);
  const standing = await app.videos.playable((await app.services.orders.get(store.id, order.id))!);
  // The original, its rendition and the rendition's poster frame, each with its sidecar.
  const standingFiles = [standing!.storage_key, standing!.rendition_key!, standing!.poster_key!]
    .map((key) => path.basename(key))
    .flatMap((name) => [name, `${name}.meta.json`])
    .sort();
  expect(filesOf(order.id)).toEqual(standingFiles);

  // A newer upload that cannot be read fails; the standing video stays, the failed file goes.
  expect(
    (
      await store.request('PUT', `/v1/orders/${order.id}/video`, Buffer.from('not a video at all'), {
        'Content-Type': 'video/webm',
      })
    ).status,
  ).toBeLessThan(500);
  for (const id of app.enqueued.splice(0)) await app.videos.process(id);
  expect(filesOf(order.id)).toEqual(standingFiles);
  expect((await app.videos.playable((await app.services.orders.get(store.id, order.id))!))?.id).toBe(standing!.id);
});

const recordPageUpload = async (uuid: string, name: string, type: string): Promise<string> => {
  const response = await sendInOneRequest(app, `/record/${uuid}/uploads`, fixture(name), type);
  expect(response.status).toBe(201);
  return response.body.video_id;
};
const timeline = async (orderId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> =>
  (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data;

/** An order whose video A (a 2 s recording) is recorded, with a re-upload B (8 s) still pending: their ids. */
async function recordedWithPendingReupload() {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  const a = await recordPageUpload(order.uuid, 'recorded-vp8-opus.webm', 'video/webm');
  expect(await app.videos.process(a)).toBe('recorded');
  const b = await recordPageUpload(order.uuid, 'uploads/eight-seconds.mp4', 'video/mp4');
  app.enqueued.splice(0);
  return { order, a, b };
}

/** Video probe, HIGH 1: B finished after A went out and replaced it, deleting A's files. */
async function expectSentVideoStands(order: { id: string; uuid: string }, a: string, b: string): Promise<void> {
  const aRow = (await app.videos.find(a))!;
  const played = await app.request('GET', `/watch/${order.uuid}/video`);
  expect(played.status).toBe(200);
  expect(Number(played.headers.get('content-length'))).toBe(Number(aRow.rendition_bytes));
  expect((await app.videos.playable((await app.services.orders.get(store.id, order.id))!))?.id).toBe(a);
  for (const key of [aRow.storage_key, aRow.rendition_key!, aRow.poster_key!])
    expect(filesOf(order.id)).toContain(path.basename(key));
  const entries = await timeline(order.id);
  expect(entries.filter((e) => e.type === 'order.recorded')).toHaveLength(1);
  expect(entries.find((e) => e.type === 'video.processing_failed')?.data).toEqual({
    reason: ALREADY_SENT_REASON,
    video_id: b,
  });
  expect((await store.request('GET', `/v1/orders/${order.id}`)).body.video_duration).toBe('2');
}

/**
 * Delivers the order and takes the dispatcher's own steps up to the provider call, stopping there:
 * the recipient's send is `sending`. Its id.
 */
async function deliveredAndHandedOver(orderId: string): Promise<string> {
  expect((await store.request('PUT', `/v1/orders/${orderId}`, { delivered: 1 })).status).toBe(200);
  const { db } = app.services.database;
  const [send] = (await claimDueSends(db, 100, new Date())).filter((s) => s.order_id === orderId);
  expect((await startSending(db, send!, (o) => o.recipient_email, new Date())).kind).toBe('started');
  return send!.id;
}

it('a re-upload processed after the video was sent does not replace it: it fails with the reason, and the sent video plays on', async () => {
  const { order, a, b } = await recordedWithPendingReupload();
  expect((await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 })).status).toBe(200);
  await app.services.dispatcher.dispatchDue(100);
  expect((await timeline(order.id)).filter((e) => e.type === 'video.sent')).toHaveLength(1);

  expect(await app.videos.process(b)).toBe('failed');
  await expectSentVideoStands(order, a, b);
});

it('a re-upload processed while the video is being handed to the provider does not replace it either', async () => {
  const { order, a, b } = await recordedWithPendingReupload();
  await deliveredAndHandedOver(order.id);

  expect(await app.videos.process(b)).toBe('failed');
  await expectSentVideoStands(order, a, b);
});

it('a re-upload processed while the send is uncertain (its process died during the provider call) does not replace it', async () => {
  const { order, a, b } = await recordedWithPendingReupload();
  const sendId = await deliveredAndHandedOver(order.id);
  // What the reconciler makes of a send left in `sending`: the recipient may hold the link already.
  await app.services.database.db.updateTable('sends').set({ status: 'uncertain' }).where('id', '=', sendId).execute();

  expect(await app.videos.process(b)).toBe('failed');
  await expectSentVideoStands(order, a, b);
});
