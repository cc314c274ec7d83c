import { beforeAll, describe, expect, it } from 'vitest';
import { unsettledVideos } from '../../src/videos/videos.ts';
import { eventually } from '../support/workers.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, receivedAnswer, videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';

const WEBM = fixture('recorded-vp8-opus.webm');
const MP4 = fixture('recorded-avc1-silent.mp4');

let app: VideoTestApp;
let store: TestAccount;
let other: TestAccount;

videoTestAppForFile({ queue: 'bullmq', maxBytes: 64 * 1024 }, (started) => ({ app, store } = started));
beforeAll(async () => {
  other = await app.createAccount('Another store');
});

async function newOrder(): Promise<{ id: string; uuid: string }> {
  const response = await store.request('POST', '/v1/orders', validOrder);
  expect(response.status).toBe(201);
  return response.body;
}

const upload = (orderId: string, bytes: Buffer | string, type = 'video/webm', account = store) =>
  account.request('PUT', `/v1/orders/${orderId}/video`, bytes, { 'Content-Type': type });
const events = async (orderId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> =>
  (await store.request('GET', `/v1/orders/${orderId}/events`)).body.data;
const processed = (orderId: string) =>
  eventually(
    async () => {
      const order = (await store.request('GET', `/v1/orders/${orderId}`)).body;
      return order.video_processed === '1' ? order : undefined;
    },
    15_000,
    'the video to be processed',
  );

describe('PUT /v1/orders/{id}/video', () => {
  it('stores the video, answers with the order, and processing records the real duration', async () => {
    const order = await newOrder();
    const response = await upload(order.id, WEBM, 'video/webm;codecs=vp8,opus');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: order.id, status: 'created', video_processed: '0', video_duration: '0' });

    const done = await processed(order.id);
    expect(done).toMatchObject({ status: 'recorded', video_processed: '1', video_duration: '2' });
    expect(done.recorded_at).toMatch(/Z$/);
    const types = (await events(order.id)).map((e) => e.type);
    expect(types).toEqual(['order.created', 'video.uploaded', 'order.recorded']);
  });

  it('refuses a video in a content coding with 415 before storing anything (API probe: stored gzipped, failed later)', async () => {
    const order = await newOrder();
    const { gzipSync } = await import('node:zlib');
    const response = await store.request('PUT', `/v1/orders/${order.id}/video`, gzipSync(WEBM), {
      'Content-Type': 'video/webm',
      'Content-Encoding': 'gzip',
    });
    expect(response.status).toBe(415);
    expect(response.body.error.message).toContain('Content-Encoding gzip');
    expect((await events(order.id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('records a clear failure on the timeline for bytes that are not a video, and changes nothing else', async () => {
    const order = await newOrder();
    const before = (await store.request('GET', `/v1/orders/${order.id}`)).body;
    expect((await upload(order.id, 'definitely not a video', 'video/mp4')).status).toBe(200);
    const failure = await eventually(
      async () => (await events(order.id)).find((e) => e.type === 'video.processing_failed'),
      15_000,
      'the failure event',
    );
    expect(failure.data.reason).toBe('The file is not a video we can read (MP4, QuickTime, WebM and the like).');
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body).toEqual(before);
    // The sender, back on the record page, is told too, with the reason (video probe: it said nothing).
    const page = await app.request('GET', `/record/${order.uuid}`);
    expect(page.text).toMatch(
      /<p class="status error" id="upload-failed" role="alert">The video you sent last could not be used: The file is not a video we can read \(MP4, QuickTime, WebM and the like\)\. Please record or choose another\.<\/p>/,
    );
  });

  it('refuses content types other than MP4, WebM and QuickTime with 415', async () => {
    const order = await newOrder();
    const response = await upload(order.id, WEBM, 'application/octet-stream');
    expect(response.status).toBe(415);
    expect(response.body.error.type).toBe('unsupported_media_type');
    expect((await upload(order.id, '{}', 'application/json')).status).toBe(415);
  });

  it('refuses a video over the configured limit with 413, whether or not its length is declared', async () => {
    const order = await newOrder();
    const big = Buffer.concat([WEBM, Buffer.alloc(64 * 1024)]);
    expect((await upload(order.id, big)).status).toBe(413);
    const chunked = await fetch(`${app.baseUrl}/v1/orders/${order.id}/video`, {
      method: 'PUT',
      headers: {
        Authorization: `Basic ${Buffer.from(`${store.appId}:${store.apiKey}`).toString('base64')}`,
        'Content-Type': 'video/webm',
      },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(big));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await events(order.id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('refuses an empty body with 422', async () => {
    const order = await newOrder();
    const response = await upload(order.id, Buffer.alloc(0));
    expect(response.status).toBe(422);
    expect(response.body.error.fields).toEqual({ video: 'must not be empty' });
  });

  it('answers 404 for another account’s order and 401 without credentials', async () => {
    const order = await newOrder();
    expect((await upload(order.id, WEBM, 'video/webm', other)).status).toBe(404);
    expect(
      (
        await app.request('PUT', `/v1/orders/${order.id}/video`, {
          rawBody: WEBM,
          headers: { 'Content-Type': 'video/webm' },
        })
      ).status,
    ).toBe(401);
  });

  it('refuses a video for a cancelled order, and for one whose video was already sent (409)', async () => {
    const cancelled = await newOrder();
    await app.services.orders.cancel(cancelled.id, 'api', 'test');
    expect((await upload(cancelled.id, WEBM)).status).toBe(409);

    const sent = await newOrder();
    await app.services.database.db
      .updateTable('orders')
      .set({ sent_at: new Date() })
      .where('id', '=', sent.id)
      .execute();
    const response = await upload(sent.id, WEBM);
    expect(response.status).toBe(409);
    expect(response.body.error.message).toContain('already been sent');
  });

  it('takes the upload from the record page by uuid, without credentials', async () => {
    const order = await newOrder();
    const response = await sendInOneRequest(app, `/record/${order.uuid}/uploads`, MP4, 'video/mp4');
    expect(response.status).toBe(201);
    const videoId = response.body.video_id as string;
    expect(videoId).toMatch(/^vid_[0-9a-f]{24}$/);
    expect(response.body).toEqual(receivedAnswer(order.uuid, videoId));
    expect(await processed(order.id)).toMatchObject({ video_duration: '2', status: 'recorded' });
    expect((await app.request('GET', response.body.status_url)).body).toEqual({ status: 'ready', duration_seconds: 2 });
    const unknown = await sendInOneRequest(
      app,
      '/record/00000000-0000-4000-8000-000000000000/uploads',
      MP4,
      'video/mp4',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe('not_found');
  });
});

describe('re-uploads: the latest upload wins', () => {
  let manual: VideoTestApp;
  let shop: TestAccount;
  videoTestAppForFile({ queue: 'manual' }, (started) => ({ app: manual, store: shop } = started));

  async function manualOrder() {
    return (await shop.request('POST', '/v1/orders', validOrder)).body as { id: string; uuid: string };
  }
  const put = (orderId: string, bytes: Buffer) =>
    shop.request('PUT', `/v1/orders/${orderId}/video`, bytes, { 'Content-Type': 'video/mp4' });

  it('lists uploads waiting for processing, for the reconciler', async () => {
    const order = await manualOrder();
    await put(order.id, MP4);
    const videoId = manual.enqueued.at(-1)!;
    const unsettled = async () =>
      (await unsettledVideos(manual.services.database.db, { olderThan: new Date(Date.now() + 60_000) })).map(
        (v) => v.id,
      );
    expect(await unsettled()).toContain(videoId);
    await manual.videos.process(videoId);
    expect(await unsettled()).not.toContain(videoId);
    // A job that read the file but died before recording the order is found again, and re-running it finishes.
    await manual.services.database.db
      .updateTable('orders')
      .set({ video_processed: false, status: 'created', recorded_at: null })
      .where('id', '=', order.id)
      .execute();
    expect(await unsettled()).toContain(videoId);
    expect(await manual.videos.process(videoId)).toBe('recorded');
    expect(await unsettled()).not.toContain(videoId);
  });

  it('ignores an older upload whose processing finishes after the newer one', async () => {
    const order = await manualOrder();
    await put(order.id, WEBM); // ~2 s
    const older = manual.enqueued.at(-1)!;
    const { buffer } = await import('../../src/videos/sample-video.ts').then(async (m) => ({
      buffer: await m.sampleVideo(7.5),
    }));
    await put(order.id, buffer);
    const newer = manual.enqueued.at(-1)!;

    expect(await manual.videos.process(newer)).toBe('recorded');
    expect(await manual.videos.process(older)).toBe('superseded');
    const current = (await shop.request('GET', `/v1/orders/${order.id}`)).body;
    expect(current.video_duration).toBe('7.5');
    // Processing the same job again (a retry) changes nothing and adds no event.
    const before = (await shop.request('GET', `/v1/orders/${order.id}/events`)).body.data.length;
    expect(await manual.videos.process(newer)).toBe('recorded');
    expect((await shop.request('GET', `/v1/orders/${order.id}/events`)).body.data.length).toBe(before);
  });

  it("an earlier upload still processing when a newer one fails becomes the order's video, in either order", async () => {
    for (const failedFirst of [true, false]) {
      const order = await manualOrder();
      await put(order.id, MP4);
      const good = manual.enqueued.at(-1)!;
      await put(order.id, Buffer.from('garbage'));
      const bad = manual.enqueued.at(-1)!;
      if (failedFirst) {
        expect(await manual.videos.process(bad)).toBe('failed');
        expect(await manual.videos.process(good)).toBe('recorded');
      } else {
        expect(await manual.videos.process(good)).toBe('superseded');
        expect(await manual.videos.process(bad)).toBe('failed');
      }
      expect((await shop.request('GET', `/v1/orders/${order.id}`)).body, `failed first: ${failedFirst}`).toMatchObject({
        video_processed: '1',
        status: 'recorded',
      });
    }
  });

  it('a newer upload that fails leaves the order on its previous video and says so on the timeline', async () => {
    const order = await manualOrder();
    await put(order.id, MP4);
    const good = manual.enqueued.at(-1)!;
    await manual.videos.process(good);
    await put(order.id, Buffer.from('garbage'));
    expect(await manual.videos.process(manual.enqueued.at(-1)!)).toBe('failed');
    const current = (await shop.request('GET', `/v1/orders/${order.id}`)).body;
    expect(current).toMatchObject({ video_processed: '1', video_duration: '2', status: 'recorded' });
    const types = (await shop.request('GET', `/v1/orders/${order.id}/events`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(types.at(-1)).toBe('video.processing_failed');
    // The record page says the new one failed and the earlier one still goes out.
    const recordPage = (await manual.request('GET', `/record/${order.uuid}`)).text;
    expect(recordPage).toContain('The one you sent before still goes out; you can try again.');
    // The watch page still plays the good video: its playback rendition.
    const video = await manual.request('HEAD', `/watch/${order.uuid}/video`);
    expect(video.headers.get('etag')).toBe(`"${good}-playback"`);
    expect(video.headers.get('content-type')).toBe('video/mp4');
  });
});
