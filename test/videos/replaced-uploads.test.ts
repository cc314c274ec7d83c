import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
