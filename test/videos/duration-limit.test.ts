import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { durationText } from '../../src/videos/browser/duration-text.ts';
import { sampleVideo } from '../../src/videos/sample-video.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { startVideoTestApp, type VideoTestApp } from './video-test-app.ts';

/** Issue 14, "the duration limit": VIDEO_MAX_SECONDS, enforced where the length is known for sure. */
let app: VideoTestApp;
let store: TestAccount;
let browser: Browser | undefined;

beforeAll(async () => {
  app = await startVideoTestApp({ queue: 'manual', env: { VIDEO_MAX_SECONDS: '10' } });
  store = await app.createAccount();
});
afterAll(async () => {
  await browser?.close();
  await app.close();
});

async function upload(seconds: number) {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  const put = await store.request('PUT', `/v1/orders/${order.id}/video`, await sampleVideo(seconds), {
    'Content-Type': 'video/mp4',
  });
  expect(put.status).toBe(200);
  const outcome = await app.videos.process(app.enqueued.at(-1)!);
  return { id: order.id as string, uuid: order.uuid as string, outcome };
}

describe('the video length limit', () => {
  it('accepts a video up to the limit, with a second of slack for where a recording stops', async () => {
    expect((await upload(10)).outcome).toBe('recorded');
    expect((await upload(10.9)).outcome).toBe('recorded');
  });

  it('refuses a longer one, saying why on the timeline, and the order stays without a video', async () => {
    const { id, outcome } = await upload(12.5);
    expect(outcome).toBe('failed');
    const order = (await store.request('GET', `/v1/orders/${id}`)).body;
    expect(order.video_processed).toBe('0');
    const events = (await store.request('GET', `/v1/orders/${id}/events`)).body.data as Array<{
      type: string;
      data: { reason?: string };
    }>;
    expect(events.find((e) => e.type === 'video.processing_failed')?.data.reason).toBe(
      'The video is 0:12 long; video messages can be up to 0:10.',
    );
  });

  it('refuses a clip under a second (a tap on Stop at once), saying why; a second is enough', async () => {
    const { id, outcome } = await upload(0.5);
    expect(outcome).toBe('failed');
    const events = (await store.request('GET', `/v1/orders/${id}/events`)).body.data as Array<{
      type: string;
      data: { reason?: string };
    }>;
    expect(events.find((e) => e.type === 'video.processing_failed')?.data.reason).toBe(
      'The video is under a second long, too short for a message; please send a longer one.',
    );
    expect((await upload(1)).outcome).toBe('recorded');
  });

  it('shows the limit on the record page', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const page = await app.request('GET', `/record/${order.uuid}`);
    expect(page.text).toContain('Up to 0:10 long.');
    expect(page.text).toContain('"maxSeconds":10');
  });
});

describe('recording on the record page', () => {
  it('counts down to the limit and stops by itself there, ready to watch back and send', async () => {
    browser = await launchChromium(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/record/${order.uuid}`);
    await page.getByRole('button', { name: 'Use the camera' }).click();
    await page.getByRole('button', { name: 'Start recording' }).click();
    const timer = page.locator('#timer');
    // After the 3-second countdown.
    await expect.poll(() => timer.textContent(), { timeout: 10_000 }).toMatch(/^0:0\d \/ 0:10 — 0:\d\d left$/);
    // Nobody presses stop: at 0:10 the page stops, shows the recording and lets it be sent.
    await expect
      .poll(() => page.getByRole('button', { name: 'Send video' }).isEnabled(), { timeout: 20_000 })
      .toBe(true);
    expect(await timer.isHidden()).toBe(true);
    expect(await page.locator('#playback').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Stop recording' }).isHidden()).toBe(true);
  }, 40_000);
});

describe('a message too short to send', () => {
  const tooShort = 'That video is under a second long: too short for a message. Please record or choose a longer one.';

  it('is refused on the page when the recording is stopped at once, and the sender records again', async () => {
    browser ??= await launchChromium(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/record/${order.uuid}`);
    await page.getByRole('button', { name: 'Use the camera' }).click();
    await page.getByRole('button', { name: 'Start recording' }).click();
    await page.getByRole('button', { name: 'Stop recording' }).click({ timeout: 15_000 });
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toBe(tooShort);
    expect(await page.locator('#send').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Record again' }).isVisible()).toBe(true);
  }, 40_000);

  it('is refused on the page when a chosen file is under a second, before any upload', async () => {
    browser ??= await launchChromium(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const page = await browser.newPage();
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') uploads.push(request.url());
    });
    await page.goto(`${app.baseUrl}/record/${order.uuid}`);
    await page
      .locator('#file')
      .setInputFiles({ name: 'blink.mp4', mimeType: 'video/mp4', buffer: await sampleVideo(0.5) });
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toBe(tooShort);
    expect(await page.locator('#send').isDisabled()).toBe(true);
    expect(uploads).toEqual([]);
  }, 40_000);
});

describe('durationText', () => {
  it.each([
    [0, '0:00'],
    [7.9, '0:07'],
    [120, '2:00'],
    [3723, '1:02:03'],
    [-3, '0:00'],
  ])('%s s → %s', (seconds, text) => {
    expect(durationText(seconds)).toBe(text);
  });
});
