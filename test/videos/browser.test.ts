import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { startCuttingProxy } from '../support/cutting-proxy.ts';
import { chromiumForFile, pageWatchingProblems } from '../support/chromium.ts';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/workers.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';

/**
 * The record and watch pages in a real (headless) Chromium against the real app. These must not
 * skip silently: without Chromium they fail and say what to install.
 */
let app: VideoTestApp;
let store: TestAccount;
let browser: Browser;

videoTestAppForFile({ queue: 'bullmq' }, (started) => ({ app, store } = started));
// A fake camera and microphone, allowed without a prompt; play() without a click.
chromiumForFile(
  (launched) => (browser = launched),
  [
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    '--autoplay-policy=no-user-gesture-required',
  ],
);

const getOrder = async (id: string) => (await store.request('GET', `/v1/orders/${id}`)).body;

/** Opens `url` in a new page that watches for problems, runs `use` on it, and closes it whatever happens. */
async function onPage(url: string, use: (watched: { page: Page; problems: string[] }) => Promise<void>): Promise<void> {
  const watched = await pageWatchingProblems(browser);
  try {
    await watched.page.goto(url);
    await use(watched);
  } finally {
    await watched.page.close();
  }
}

/** Chooses a video file on the record page, as the sender's file picker does. */
const chooseFile = (page: Page, name: string, mimeType: string, buffer: Buffer) =>
  page.locator('#file').setInputFiles({ name, mimeType, buffer });

/** Waits until the record page's Send button can be pressed: the video is ready to go. */
const sendable = (page: Page) =>
  expect.poll(() => page.getByRole('button', { name: 'Send video' }).isEnabled()).toBe(true);

/** Presses Send video and waits until the record page's status says `outcome`. */
async function send(page: Page, outcome: string, timeout: number): Promise<void> {
  await page.getByRole('button', { name: 'Send video' }).click();
  await page.getByRole('status').filter({ hasText: outcome }).waitFor({ timeout });
}

/** Waits until the order's video is processed. */
async function processed(orderId: string): Promise<void> {
  await eventually(
    async () => ((await getOrder(orderId)).video_processed === '1' ? true : undefined),
    20_000,
    'processing',
  );
}

/** Uploads a short recording through the API and waits until it is processed. */
async function uploadedAndProcessed(orderId: string): Promise<void> {
  await store.request('PUT', `/v1/orders/${orderId}/video`, fixture('recorded-vp8-opus.webm'), {
    'Content-Type': 'video/webm',
  });
  await processed(orderId);
}

/**
 * Waits until the order's video is processed, then records it as sent to the recipient (no real
 * send: the watch page's `viewed_at` counts only plays after sending).
 */
async function processedAndSent(orderId: string): Promise<void> {
  await processed(orderId);
  await app.services.orders.markSent(orderId, {
    sendId: `snd_test_${orderId}`,
    channel: 'email',
    providerMessageId: 'test',
    at: new Date(),
  });
}

describe('in a browser', () => {
  it('records with the camera on the record page, sends it, and the order is recorded', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page, problems }) => {
      await page.getByRole('button', { name: 'Use the camera' }).click();
      // Record 2.5 s of the camera's own media clock (the preview plays the same stream), rather
      // than 2.5 s of wall time a busy machine may not give the browser.
      const preview = page.locator('#preview');
      const mediaTime = () => preview.evaluate((video) => (video as unknown as { currentTime: number }).currentTime);
      await page.getByRole('button', { name: 'Start recording' }).click();
      // A countdown first; the recording starts when the stop button shows.
      await page.getByRole('button', { name: 'Stop recording' }).waitFor({ timeout: 15_000 });
      const startedAt = await mediaTime();
      await expect.poll(mediaTime, { timeout: 15_000 }).toBeGreaterThanOrEqual(startedAt + 2.5);
      await page.getByRole('button', { name: 'Stop recording' }).click();
      await sendable(page);
      await send(page, 'Thank you! Your video was received.', 15_000);
      // The confirmation replaced the form: nothing left to press; then the video is ready.
      expect(await page.locator('#send').isHidden()).toBe(true);
      expect(await page.getByText('Choose a video file').isHidden()).toBe(true);
      await expect.poll(() => page.locator('#recorder').getAttribute('data-state'), { timeout: 60_000 }).toBe('sent');
      expect(problems).toEqual([]);
    });
    const recorded = await eventually(
      async () => {
        const current = await getOrder(order.id);
        return current.video_processed === '1' ? current : undefined;
      },
      20_000,
      'the recording to be processed',
    );
    expect(recorded.status).toBe('recorded');
    expect(Number(recorded.video_duration)).toBeGreaterThanOrEqual(1.5);

    // The page drew a frame of what it sent and uploaded it as the poster: the watch page shows it.
    const poster = await eventually(
      async () => {
        const response = await fetch(`${app.baseUrl}/watch/${order.uuid}/poster`);
        return response.ok ? response : undefined;
      },
      15_000,
      'the poster frame',
    );
    expect(poster.headers.get('content-type')).toBe('image/jpeg');
    const jpeg = Buffer.from(await poster.arrayBuffer());
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(jpeg.length).toBeGreaterThan(1000);
    const watch = await (await fetch(`${app.baseUrl}/watch/${order.uuid}`)).text();
    expect(watch).toContain(`poster="/watch/${order.uuid}/poster"`);
  });

  it('shows a clear failure on the record page when the upload is refused', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page, problems }) => {
      await chooseFile(page, 'message.webm', 'video/webm', fixture('recorded-vp8-opus.webm'));
      await sendable(page);
      await app.services.orders.cancel(order.id, 'api', 'test'); // cancelled while the sender watched the preview
      await send(page, 'Your video was not sent: The order is cancelled', 10_000);
      // The refused upload itself is the one error Chromium logs (a failed request), nothing else.
      expect(problems.filter((problem) => !/status of 409/.test(problem))).toEqual([]);
    });
  });

  it('records by keyboard alone: focus moves to the next thing to press as each button goes (gift pages probe)', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page }) => {
      // The focused element's id (the page's parts: #camera, #record, #stop, #playback).
      const focused = () => page.locator('*:focus').evaluate((element) => element.id);
      await page.getByRole('button', { name: 'Use the camera' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(focused, { timeout: 10_000 }).toBe('record');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Stop recording' }).waitFor({ timeout: 15_000 });
      await expect.poll(focused).toBe('stop');
      const preview = page.locator('#preview');
      const mediaTime = () => preview.evaluate((video) => (video as unknown as { currentTime: number }).currentTime);
      const startedAt = await mediaTime();
      await expect.poll(mediaTime, { timeout: 15_000 }).toBeGreaterThanOrEqual(startedAt + 1.5);
      await page.keyboard.press('Enter');
      // The recording to watch has the focus; Tab goes on to the buttons after it.
      await expect.poll(focused, { timeout: 10_000 }).toBe('playback');
    });
  });

  it('says what to do when the camera is refused, missing or busy, not the browser’s error name (gift pages probe)', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    for (const [name, words] of [
      ['NotAllowedError', 'did not let this page use the camera'],
      ['NotFoundError', 'No camera or microphone was found'],
      ['NotReadableError', 'in use by another app'],
      ['TypeError', 'We could not start your camera'],
    ] as const) {
      const watched = await pageWatchingProblems(browser);
      try {
        // The browser's own refusal, as getUserMedia gives it (the fake device always works).
        await watched.page.addInitScript({
          content: `navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('refused', ${JSON.stringify(name)}));`,
        });
        await watched.page.goto(`${app.baseUrl}/record/${order.uuid}`);
        await watched.page.getByRole('button', { name: 'Use the camera' }).click();
        const status = watched.page.getByRole('status').filter({ hasText: words });
        await status.waitFor({ timeout: 5_000 });
        expect(await status.textContent(), name).not.toContain(name);
      } finally {
        await watched.page.close();
      }
    }
  });

  it('asks the sender who the video is for when the order came without a recipient, and saves it', async () => {
    const { order } = await app.services.orders.create(
      store.id,
      { name: 'Ann Sender', email: 'ann@example.com', recipient_name: 'your recipient' },
      { source: 'shopify', awaitingRecipient: { reason: 'the line item came without one' } },
    );
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page, problems }) => {
      await page.getByRole('heading', { name: 'Who is your video message for?' }).waitFor();
      // The placeholder name is not offered as the recipient's name.
      expect(await page.getByLabel('Their name').inputValue()).toBe('');
      await page.getByLabel('Their name').fill('Eve Doe');
      await page.getByRole('button', { name: 'Save recipient' }).click();
      await page.getByRole('status').filter({ hasText: 'e-mail address or mobile number' }).waitFor();
      await page.getByLabel('Their mobile number').fill('+1 415 555 0100');
      await page.getByRole('button', { name: 'Save recipient' }).click();
      // Saved: the page reloads as the record page for Eve.
      await page.getByRole('heading', { name: 'Record a video message for Eve Doe' }).waitFor({ timeout: 10_000 });
      expect(problems).toEqual([]);
    });
    expect(await getOrder(order.id)).toMatchObject({
      recipient_name: 'Eve Doe',
      recipient_phone: '+14155550100',
      recipient_email: null,
      send_method: 'sms',
    });
  });

  it('plays the video on the watch page, and pressing play sets viewed_at', async () => {
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, video_title: 'For you' })).body;
    await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
      'Content-Type': 'video/webm',
    });
    await processedAndSent(order.id);

    await onPage(`${app.baseUrl}/watch/${order.uuid}`, async ({ page, problems }) => {
      await expect.poll(() => page.locator('h1').textContent()).toBe('For you');
      expect(await page.locator('#sender').textContent()).toBe('Ann Sender');
      // The page loaded and the browser fetched the video's metadata: not a view yet.
      await page.waitForFunction("document.getElementById('message').readyState >= 1", undefined, { timeout: 10_000 });
      expect((await getOrder(order.id)).viewed_at).toBeNull();

      await page.evaluate("document.getElementById('message').play()");
      await eventually(async () => ((await getOrder(order.id)).viewed_at ? true : undefined), 10_000, 'viewed_at');
      expect(problems).toEqual([]);
    });
  });

  it('shows the play button on the first screen of a phone upright or sideways, long title included (recipient probe)', async () => {
    const order = (
      await store.request('POST', '/v1/orders', {
        ...validOrder,
        video_title: 'For the best grandpa in the whole wide world, with love from all of us',
      })
    ).body;
    await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
      'Content-Type': 'video/webm',
    });
    await processedAndSent(order.id);
    for (const viewport of [
      { width: 750, height: 342 }, // iPhone 13 sideways
      { width: 640, height: 320 }, // a small Android sideways
      { width: 320, height: 568 }, // iPhone SE upright
    ]) {
      const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
      try {
        const page = await context.newPage();
        await page.goto(`${app.baseUrl}/watch/${order.uuid}`);
        const play = (await page.locator('#play').boundingBox())!;
        expect(play.y + play.height, `${viewport.width}×${viewport.height}`).toBeLessThanOrEqual(viewport.height);
      } finally {
        await context.close();
      }
    }
  });

  it('says the day it was sent on the recipient’s own calendar, not UTC’s (Christmas morning in Sydney)', async () => {
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, video_title: 'Merry Christmas' })).body;
    await uploadedAndProcessed(order.id);
    // 22:00 UTC on 24 December: 09:00 on the 25th in Sydney.
    await app.services.orders.markSent(order.id, {
      sendId: `snd_test_${order.id}`,
      channel: 'email',
      providerMessageId: 'test',
      at: new Date('2026-12-24T22:00:00Z'),
    });
    const page = `${app.baseUrl}/watch/${order.uuid}`;
    // Without the page's script (no JavaScript), the server's UTC day.
    expect(await (await fetch(page)).text()).toContain('>December 24</time>');
    const context = await browser.newContext({ timezoneId: 'Australia/Sydney', locale: 'en-AU' });
    try {
      const tab = await context.newPage();
      await tab.goto(page);
      await expect.poll(() => tab.locator('#sent-on').innerText()).toBe('Sent on 25 December');
    } finally {
      await context.close();
    }
  });

  it('sends the typed transcript with the video, and the watch page plays it as captions, by keyboard', async () => {
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, video_title: 'With words' })).body;
    const said = 'Happy birthday, Bob! We hope you love it.';
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page, problems }) => {
      await chooseFile(page, 'message.webm', 'video/webm', fixture('recorded-vp8-opus.webm'));
      await page.getByLabel('What you say (shown as captions)').fill(said);
      await sendable(page);
      await send(page, 'Thank you! Your video was received.', 15_000);
      expect(await page.getByRole('status').textContent()).not.toContain('captions could not be saved');
      expect(problems).toEqual([]);
    });
    await processedAndSent(order.id);

    await onPage(`${app.baseUrl}/watch/${order.uuid}`, async (watch) => {
      // The track loaded (readyState 2) and is shown by default: its cues are the transcript's.
      await watch.page.waitForFunction("document.querySelector('#message track').readyState === 2", undefined, {
        timeout: 10_000,
      });
      const track = await watch.page.evaluate(`(() => {
        const t = document.getElementById('message').textTracks[0];
        return { kind: t.kind, label: t.label, mode: t.mode, cues: Array.from(t.cues, (c) => c.text) };
      })()`);
      expect(track).toEqual({
        kind: 'captions',
        label: 'Captions',
        mode: 'showing',
        cues: ['Happy birthday, Bob!', 'We hope you love it.'],
      });

      // The poster the record page drew is a frame of the video, not a blank canvas (the fixture's
      // frames are saturated colours; a frame drawn before it was presented is all black).
      const posterPixel = await watch.page.evaluate(`new Promise((resolve) => {
        const image = new Image();
        image.onload = () => {
          const canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          resolve(Array.from(context.getImageData(image.width / 2, image.height / 2, 1, 1).data.slice(0, 3)));
        };
        image.src = '/watch/${order.uuid}/poster';
      })`);
      expect(Math.max(...(posterPixel as number[]))).toBeGreaterThan(100);

      // The reveal's play button is reached with Tab and pressed with the space bar: no mouse needed.
      const focused = () => watch.page.evaluate('document.activeElement && document.activeElement.id');
      for (let presses = 0; presses < 10 && (await focused()) !== 'play'; presses++)
        await watch.page.keyboard.press('Tab');
      expect(await focused()).toBe('play');
      await watch.page.keyboard.press('Space');
      await eventually(async () => ((await getOrder(order.id)).viewed_at ? true : undefined), 10_000, 'played');
      expect(watch.problems).toEqual([]);
    });
  });
});

describe('on a network that drops', () => {
  it('continues a cut upload from where it stopped, then says the video is ready', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const video = await videoOfAboutOneMegabyte();
    // The first PATCH is cut once 60% of the video has gone through.
    const proxy = await startCuttingProxy(new URL(app.baseUrl), 'PATCH ', Math.floor(video.length * 0.6));
    try {
      await onPage(`${proxy.url}/record/${order.uuid}`, async ({ page, problems }) => {
        await chooseFile(page, 'message.mp4', 'video/mp4', video);
        await sendable(page);
        await send(page, 'Your video is ready', 60_000);
        expect(proxy.cuts()).toBe(1);
        // Resumed, not restarted: after the cut (and Chromium's own resend of the request, which the
        // server refuses as the wrong offset), the last PATCH starts where the server's bytes end.
        const offsets = proxy.offsets();
        expect(offsets[0]).toBe(0);
        const resumedFrom = offsets.at(-1)!;
        expect(resumedFrom).toBeGreaterThan(video.length * 0.3);
        expect(resumedFrom).toBeLessThanOrEqual(Math.floor(video.length * 0.6));
        // The cut request is the one failure Chromium reports.
        expect(
          problems.filter((problem) => !/ERR_CONNECTION|ERR_EMPTY_RESPONSE|Failed to load resource/.test(problem)),
        ).toEqual([]);
      });
    } finally {
      await proxy.close();
    }
    const recorded = await getOrder(order.id);
    expect(recorded.video_processed).toBe('1');
    expect(Number(recorded.video_duration)).toBe(2);
  });
});

describe('after the upload', () => {
  it('says on the record page why a video could not be prepared', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page }) => {
      await chooseFile(page, 'broken.mp4', 'video/mp4', fixture('uploads/corrupt.mp4'));
      await sendable(page);
      await send(page, 'We could not prepare your video:', 60_000);
      // Back to the first screen: record again or choose another video; nothing to send.
      expect(await page.locator('#send').isDisabled()).toBe(true);
      expect(await page.locator('#send').isHidden()).toBe(true);
      expect(await page.getByText('Choose a video file').isVisible()).toBe(true);
    });
  });

  it('says why a re-upload could not be prepared while an earlier video stands (video probe: waited 15 minutes, said nothing)', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await uploadedAndProcessed(order.id);
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page }) => {
      await chooseFile(page, 'broken.mp4', 'video/mp4', fixture('uploads/corrupt.mp4'));
      await sendable(page);
      await send(page, 'We could not prepare your video:', 60_000);
      expect(await page.getByText('Choose a video file').isVisible()).toBe(true);
    });
  });

  it('stops waiting and says so when the server no longer knows the upload it follows', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    await onPage(`${app.baseUrl}/record/${order.uuid}`, async ({ page }) => {
      await chooseFile(page, 'message.webm', 'video/webm', fixture('recorded-vp8-opus.webm'));
      await sendable(page);
      await send(page, 'Thank you! Your video was received.', 15_000);
      // The page asks 3 s after the upload; by then its status URL is 404 for good.
      expect((await store.request('DELETE', `/v1/orders/${order.id}`)).status).toBeLessThan(300);
      await page
        .getByRole('status')
        .filter({ hasText: 'We can no longer follow this video' })
        .waitFor({ timeout: 15_000 });
      expect(await page.getByText('Choose a video file').isVisible()).toBe(true);
    });
  });
});

/** Two seconds of nearly lossless test pattern with sound, made by ffmpeg: ~1.1 MB of real video. */
async function videoOfAboutOneMegabyte(): Promise<Buffer> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'doorstep-big-video-'));
  const file = path.join(directory, 'big.mp4');
  try {
    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=640x360:rate=30',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440',
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-qp',
      '4',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-movflags',
      '+faststart',
      file,
    ]);
    return await fs.promises.readFile(file);
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}
