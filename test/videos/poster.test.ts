import { describe, expect, it } from 'vitest';
import { VideoNotStoredError } from '../../src/videos/storage/storage.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { uploadFromRecordPage, videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';

/**
 * Issue 14, the poster frame: what the record page uploads after a video, and where it shows; and
 * issue 27: once the video is processed, the poster is a frame of its playback rendition.
 */
let app: VideoTestApp;
let store: TestAccount;
videoTestAppForFile({ queue: 'manual' }, (started) => ({ app, store } = started));

/** A JPEG as far as anyone checks without decoding it: SOI, an APP0 JFIF segment, then data. */
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(200, 7),
  Buffer.from([0xff, 0xd9]),
]);

async function sentFromRecordPage(uuid: string, options: { process: boolean } = { process: true }): Promise<string> {
  const response = await uploadFromRecordPage(app, uuid);
  expect(response.body).toMatchObject({
    status: 'received',
    poster_upload_url: expect.stringMatching(/\/poster$/),
    transcript_url: expect.stringMatching(/\/transcript$/),
  });
  if (options.process) expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  return response.body.poster_upload_url as string;
}

/** The order's video's poster key, as stored. */
const posterOf = (orderId: string) =>
  app.services.database.db
    .selectFrom('videos')
    .select('poster_key')
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

const putPoster = (url: string, body: Buffer, type = 'image/jpeg') =>
  app.request('PUT', url, { rawBody: body, headers: { 'Content-Type': type } });

describe('the poster frame', () => {
  it('is the page’s frame while the video processes, refused a second time, then a frame of the rendition', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const url = await sentFromRecordPage(order.uuid, { process: false });
    expect((await app.request('GET', `/watch/${order.uuid}/poster`)).status).toBe(404);

    expect((await putPoster(url, JPEG)).status).toBe(200);
    const served = async () => {
      const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/poster`);
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      return Buffer.from(await response.arrayBuffer());
    };
    expect((await putPoster(url, JPEG)).status).toBe(409);
    const pagePoster = await posterOf(order.id);

    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
    const frame = await served();
    expect(frame.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(frame.equals(JPEG)).toBe(false);
    expect(await app.request('GET', `/watch/${order.uuid}`).then((r) => r.text)).toContain(
      `poster="/watch/${order.uuid}/poster"`,
    );
    // The page's frame is gone from storage; a late one from the page changes nothing.
    await expect(app.storage.get(pagePoster.poster_key!)).rejects.toBeInstanceOf(VideoNotStoredError);
    expect((await putPoster(url, JPEG)).status).toBe(200);
    expect((await served()).equals(frame)).toBe(true);
  });

  it('refuses what is not a small JPEG, and a video of another order', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const url = await sentFromRecordPage(order.uuid);
    expect((await putPoster(url, JPEG, 'image/png')).status).toBe(415);
    const notJpeg = await putPoster(url, Buffer.from('<html><script>alert(1)</script></html>'));
    expect(notJpeg.status).toBe(422);
    expect(notJpeg.body.error.fields).toEqual({ poster: 'must be a JPEG image' });
    expect((await putPoster(url, Buffer.concat([JPEG, Buffer.alloc(600 * 1024)]))).status).toBe(413);
    const other = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect((await putPoster(url.replace(order.uuid, other.uuid), JPEG)).status).toBe(404);
    // Nothing stuck: a valid poster still goes in afterwards.
    expect((await putPoster(url, JPEG)).status).toBe(200);
  });

  it('leaves storage with the video it belongs to when a newer video replaces it', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect((await putPoster(await sentFromRecordPage(order.uuid), JPEG)).status).toBe(200);
    const first = await posterOf(order.id);
    await sentFromRecordPage(order.uuid);
    await expect(app.storage.get(first.poster_key!)).rejects.toBeInstanceOf(VideoNotStoredError);
    // The new video shows its own frame.
    const second = await posterOf(order.id);
    expect(second.poster_key).not.toBe(first.poster_key);
    expect((await app.request('GET', `/watch/${order.uuid}/poster`)).status).toBe(200);
  });
});
