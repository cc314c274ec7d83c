import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from './video-test-app.ts';

const WEBM = fixture('recorded-vp8-opus.webm');

let app: VideoTestApp;
let store: TestAccount;
const clock = new TestClock();

beforeAll(async () => {
  app = await startVideoTestApp({ queue: 'manual', clock });
  store = await app.createAccount();
});
afterAll(() => app.close());

async function orderWithVideo(extra: Record<string, unknown> = {}): Promise<{ id: string; uuid: string }> {
  const order = (await store.request('POST', '/v1/orders', { ...validOrder, ...extra })).body;
  expect(
    (await store.request('PUT', `/v1/orders/${order.id}/video`, WEBM, { 'Content-Type': 'video/webm' })).status,
  ).toBe(200);
  expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  return order;
}
const viewedAt = async (id: string) => (await store.request('GET', `/v1/orders/${id}`)).body.viewed_at as string | null;

describe('the watch page', () => {
  it('names the store the gift comes from, escaped, above the message (and the record page does too)', async () => {
    const maple = await app.createAccount('Maple & <Thread>');
    const order = (await maple.request('POST', '/v1/orders', validOrder)).body;
    for (const page of [`/watch/${order.uuid}`, `/record/${order.uuid}`]) {
      const response = await app.request('GET', page);
      expect(response.text, page).toContain(
        '<header class="store"><p class="store-name">Maple &amp; &lt;Thread&gt;</p></header>',
      );
    }
  });

  it('shows a friendly 404 page for an unknown or malformed uuid', async () => {
    for (const uuid of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await app.request('GET', `/watch/${uuid}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.text).toContain('We can’t find this video message');
    }
  });

  it('sends a link that kept the sentence’s punctuation on to the page (gift pages probe: “can’t find” for uuid.)', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    for (const page of ['watch', 'record'])
      for (const tail of ['.', ')', '),', '!', '%22', '%C2%BB']) {
        const response = await fetch(`${app.baseUrl}/${page}/${order.uuid}${tail}?lang=fr`, { redirect: 'manual' });
        expect({ page, tail, status: response.status }).toEqual({ page, tail, status: 301 });
        expect(response.headers.get('location')).toBe(`/${page}/${order.uuid}?lang=fr`);
      }
    // Anything else after the uuid is still not a link of ours.
    expect((await app.request('GET', `/watch/${order.uuid}x`)).status).toBe(404);
  });

  it('says the video is on its way before it is processed', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const response = await app.request('GET', `/watch/${order.uuid}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('A video message from Ann Sender is on its way');
    expect(response.text).not.toContain('<video');
    expect((await app.request('GET', `/watch/${order.uuid}/video`)).status).toBe(404);
  });

  it('plays the video with the sender’s name and the title, every value escaped, and leaks no URL', async () => {
    const order = await orderWithVideo({ name: '<script>alert(1)</script>', video_title: 'Happy "birthday" & more' });
    const response = await app.request('GET', `/watch/${order.uuid}`);
    expect(response.text).toContain(
      `<video id="message" controls playsinline preload="metadata" src="/watch/${order.uuid}/video"`,
    );
    expect(response.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(response.text).not.toContain('<script>alert(1)');
    expect(response.text).toContain('<h1 class="title">Happy &quot;birthday&quot; &amp; more</h1>');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('GET /watch/{uuid}/video — HTTP Range', () => {
  let order: { id: string; uuid: string };
  /** What the upload (a WebM) became: its playback rendition, the file every range is cut from. */
  let PLAYBACK: Buffer;
  beforeAll(async () => {
    order = await orderWithVideo();
    PLAYBACK = Buffer.from(await (await fetch(`${app.baseUrl}/watch/${order.uuid}/video`)).arrayBuffer());
  });

  it('sends the whole video without a Range: the MP4 rendition, not the uploaded WebM', async () => {
    const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`);
    expect(response.status).toBe(200);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-type')).toBe('video/mp4');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.toString('latin1', 4, 8)).toBe('ftyp');
    expect(body.equals(WEBM)).toBe(false);
    expect(body.equals(PLAYBACK)).toBe(true);
  });

  it('answers a range with 206 and exactly those bytes', async () => {
    const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`, { headers: { Range: 'bytes=100-299' } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 100-299/${PLAYBACK.length}`);
    expect(response.headers.get('content-length')).toBe('200');
    expect(Buffer.from(await response.arrayBuffer()).equals(PLAYBACK.subarray(100, 300))).toBe(true);

    const tail = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`, { headers: { Range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(PLAYBACK.subarray(PLAYBACK.length - 10))).toBe(true);
  });

  it('answers 416 with the size for a range past the end', async () => {
    const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`, {
      headers: { Range: `bytes=${PLAYBACK.length}-` },
    });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${PLAYBACK.length}`);
  });

  it('answers HEAD with the headers only', async () => {
    const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(PLAYBACK.length));
  });
});

describe('caching the video and its poster (probe finding: a re-upload played stale for an hour)', () => {
  // As a browser revalidates: fetch() would otherwise add "Cache-Control: no-cache" to a conditional
  // request (the Fetch standard), which asks the server for the whole answer.
  const revalidate = (etag: string) => ({ 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });

  it('is revalidated every time: 304 while unchanged, the new video and poster once the sender recorded again', async () => {
    const order = await orderWithVideo();
    const first: Record<string, string> = {};
    for (const part of ['video', 'poster']) {
      const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/${part}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
      first[part] = response.headers.get('etag')!;
      expect(first[part]).toMatch(/^"[^"]+"$/);
      const again = await fetch(`${app.baseUrl}/watch/${order.uuid}/${part}`, { headers: revalidate(first[part]) });
      expect({ part, status: again.status }).toEqual({ part, status: 304 });
    }
    expect(
      (await store.request('PUT', `/v1/orders/${order.id}/video`, WEBM, { 'Content-Type': 'video/webm' })).status,
    ).toBe(200);
    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
    for (const part of ['video', 'poster']) {
      const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/${part}`, { headers: revalidate(first[part]!) });
      expect({ part, status: response.status }).toEqual({ part, status: 200 });
      expect(response.headers.get('etag')).not.toBe(first[part]);
    }
  });
});

describe('viewed_at', () => {
  it('is set by the first play beacon only — never by page views, HEAD or fetching the video', async () => {
    const order = await orderWithVideo();
    await app.request('GET', `/watch/${order.uuid}`);
    await app.request('HEAD', `/watch/${order.uuid}`);
    await app.request('GET', `/watch/${order.uuid}/video`);
    await app.request('GET', `/watch/${order.uuid}/video`, { headers: { Range: 'bytes=0-1' } });
    await app.request('HEAD', `/watch/${order.uuid}/video`);
    expect(await viewedAt(order.id)).toBeNull();
    // Before the video went out, a play is the sender checking it: not the recipient's view.
    expect((await app.request('POST', `/watch/${order.uuid}/viewed`)).status).toBe(204);
    expect(await viewedAt(order.id)).toBeNull();

    await app.services.orders.markSent(order.id, {
      sendId: 'snd_test',
      channel: 'email',
      providerMessageId: 'test',
      at: clock.now(),
    });
    expect((await app.request('POST', `/watch/${order.uuid}/viewed`)).status).toBe(204);
    const first = await viewedAt(order.id);
    expect(first).toMatch(/Z$/);
    // A later play, at a time that would show (timestamps have whole seconds).
    clock.advance(60_000);
    expect((await app.request('POST', `/watch/${order.uuid}/viewed`)).status).toBe(204);
    expect(await viewedAt(order.id)).toBe(first);
    const types = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(types.filter((t: string) => t === 'video.viewed')).toHaveLength(1);
  });

  it('cannot be set before there is a video, or for an unknown uuid', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect((await app.request('POST', `/watch/${order.uuid}/viewed`)).status).toBe(404);
    expect((await app.request('POST', '/watch/00000000-0000-4000-8000-000000000000/viewed')).status).toBe(404);
    expect(await viewedAt(order.id)).toBeNull();
  });
});

describe('the record page', () => {
  it('offers the camera and a file picker, escaping the recipient, and says so when the order no longer takes a video', async () => {
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_name: 'Bob <b>' })).body;
    const page = await app.request('GET', `/record/${order.uuid}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Record a video message for Bob &lt;b&gt;');
    expect(page.text).toContain(
      `<script type="application/json" id="page-data">{"uploadUrl":"/record/${order.uuid}/uploads","maxBytes":`,
    );
    expect(page.headers.get('permissions-policy')).toContain('camera=(self)');

    await app.services.orders.cancel(order.id, 'api', 'test');
    expect((await app.request('GET', `/record/${order.uuid}`)).text).toContain('can no longer be recorded');
    expect((await app.request('GET', '/record/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('the uploaded original', () => {
  it('is deleted VIDEO_ORIGINAL_RETENTION_DAYS after the video was sent; the rendition plays on', async () => {
    const order = await orderWithVideo();
    const video = await app.services.database.db
      .selectFrom('videos')
      .selectAll()
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
    await app.services.orders.markSent(order.id, {
      sendId: 'snd_retention',
      channel: 'email',
      providerMessageId: 'test',
      at: clock.now(),
    });
    // Not before its time: 29 days later it is still there.
    clock.advance(29 * 24 * 3600 * 1000);
    await app.videos.deleteExpiredOriginals(30);
    expect((await app.storage.get(video.storage_key)).size).toBe(WEBM.length);

    clock.advance(2 * 24 * 3600 * 1000);
    expect(await app.videos.deleteExpiredOriginals(30)).toBeGreaterThanOrEqual(1);
    await expect(app.storage.get(video.storage_key)).rejects.toThrow('No stored video');
    const after = await app.services.database.db
      .selectFrom('videos')
      .select('original_deleted_at')
      .where('id', '=', video.id)
      .executeTakeFirstOrThrow();
    expect(after.original_deleted_at).not.toBeNull();
    const playback = await fetch(`${app.baseUrl}/watch/${order.uuid}/video`);
    expect(playback.status).toBe(200);
    expect(playback.headers.get('content-type')).toBe('video/mp4');
    // Done once: a second run finds nothing of this order's.
    expect(await app.videos.deleteExpiredOriginals(30)).toBe(0);
  });
});
