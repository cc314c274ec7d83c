import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { startFakeS3 } from '../support/fake-s3.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { fixture, s3VideoEnv, startVideoTestApp, type VideoTestApp } from './video-test-app.ts';

/**
 * With S3_BUCKET set, the watch page's player is redirected to a presigned URL and Chromium fetches
 * the bytes from object storage itself (a local S3-compatible server here): the video plays, its
 * Range requests are answered by the store with 206, nothing of the video passes through our
 * server, and pressing play still records the view.
 */
const BUCKET = 'doorstep-videos';
let s3: Awaited<ReturnType<typeof startFakeS3>>;
let app: VideoTestApp;
let store: TestAccount;
let browser: Browser;

beforeAll(async () => {
  s3 = await startFakeS3([BUCKET]);
  app = await startVideoTestApp({
    queue: 'manual',
    env: { ...s3VideoEnv(s3, BUCKET), S3_PRESIGNED_URL_SECONDS: '120' },
  });
  store = await app.createAccount();
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await s3?.close();
});

it('plays from object storage through the redirect, with Range requests, and play sets viewed_at', async () => {
  const webm = fixture('recorded-vp8-opus.webm');
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  await store.request('PUT', `/v1/orders/${order.id}/video`, webm, { 'Content-Type': 'video/webm' });
  expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  // viewed_at counts the recipient's plays, which come after the video was sent to them.
  await app.services.orders.markSent(order.id, {
    sendId: 'snd_test',
    channel: 'email',
    providerMessageId: 'test',
    at: new Date(),
  });

  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
      problems.push(`console: ${message.text()}`);
  });
  const videoResponses: Array<{ url: string; status: number }> = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'media')
      videoResponses.push({ url: response.url(), status: response.status() });
  });
  try {
    const fromS3 = s3.requests.length;
    await page.goto(`${app.baseUrl}/watch/${order.uuid}`);
    await page.evaluate("document.getElementById('message').play()");
    await eventually(
      async () => ((await store.request('GET', `/v1/orders/${order.id}`)).body.viewed_at ? true : undefined),
      15_000,
      'viewed_at',
    );
    // It really played: the media clock moved, which needs the bytes to have arrived and decoded.
    await expect
      .poll(
        () => page.locator('#message').evaluate((video) => (video as unknown as { currentTime: number }).currentTime),
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);

    // Our route answered 302; the bytes came from the bucket, for a Range the browser asked for.
    expect(videoResponses[0]).toMatchObject({ url: `${app.baseUrl}/watch/${order.uuid}/video`, status: 302 });
    const fromStorage = videoResponses.filter((r) => r.url.startsWith(`${s3.endpoint}/${BUCKET}/${order.id}/`));
    expect(fromStorage.length).toBeGreaterThan(0);
    expect(fromStorage.every((r) => r.status === 206)).toBe(true);
    // Playwright shows a redirected request's headers as Chromium first guessed them; the store's
    // own log has what arrived: the browser's Range header, on the presigned URL.
    // (The poster frame is read through Node, without a Range: only the video's reads are the browser's.)
    const storageReads = s3.requests
      .slice(fromS3)
      .filter((r) => r.method === 'GET' && r.url.startsWith(`/${BUCKET}/${order.id}/`) && r.url.includes('-playback'));
    expect(storageReads.length).toBeGreaterThan(0);
    for (const read of storageReads) {
      expect(read.range).toMatch(/^bytes=\d+-\d*$/);
      expect(read.url).toContain('X-Amz-Signature=');
    }
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);
