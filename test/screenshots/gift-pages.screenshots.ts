import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { projectRoot } from '../support/processes.ts';
import type { TestAccount } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from '../videos/video-test-app.ts';

/**
 * The gift pages as the sender and the recipient see them, on a phone (390×844) and a desktop
 * (1280×800), for the README (`npm run screenshots`): the record page before recording, with a video
 * to preview, and sent; the watch page with its poster frame, and playing with captions; the
 * recipient's thank-you note written and sent, and the sender's page of it. Driven
 * through the real pages in Chromium against the real app and workers; the video is a test fixture.
 *
 * Each picture is one entry of `shots` (docs/screenshots/{name}-{phone,desktop}.png): a new page
 * state is a new entry.
 */
interface Shot {
  name: string;
  /** Brings a fresh page (at the device's size) to the state the picture shows. */
  show(page: Page): Promise<void>;
}

const shots: Shot[] = [
  { name: 'record-before', show: async (page) => void (await openRecordPage(page, await newOrder())) },
  { name: 'record-preview', show: async (page) => previewVideo(await openRecordPage(page, await newOrder())) },
  { name: 'record-sent', show: async (page) => sendVideo(await openRecordPage(page, await newOrder())) },
  { name: 'watch', show: (page) => openWatchPage(page) },
  { name: 'watch-captions', show: (page) => openWatchPage(page, { captionAt: 0.5 }) },
  { name: 'thanks-write', show: (page) => writeThanks(page) },
  { name: 'thanks-sent', show: (page) => writeThanks(page, { send: true }) },
  { name: 'thanks-page', show: (page) => openThanksPage(page) },
];

const devices = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
};

const order = {
  name: 'Ann Lee',
  email: 'ann@example.com',
  recipient_name: 'Grandpa Joe',
  recipient_email: 'joe@example.com',
  video_title: 'Happy 80th birthday!',
};
const transcript = 'Happy 80th birthday, Grandpa Joe! We love you, and we will see you at Christmas.';
const thanksNote = 'Thank you, Ann! I watched it three times. See you at Christmas. — Joe';

let app: VideoTestApp;
let store: TestAccount;
let browser: Browser;
/** The order the watch shots show: sent from the record page (so it has its poster and captions), then sent. */
let watched: { id: string; uuid: string };

const out = (name: string) => path.join(projectRoot, 'docs', 'screenshots', `${name}.png`);
const newOrder = async (): Promise<{ id: string; uuid: string }> =>
  (await store.request('POST', '/v1/orders', order)).body;

async function openRecordPage(page: Page, target: { uuid: string }): Promise<Page> {
  await page.goto(`${app.baseUrl}/record/${target.uuid}`);
  await page.getByRole('heading', { name: 'Record a video message for Grandpa Joe' }).waitFor();
  return page;
}

/** A video picked from the files (a camera in headless Chromium is a test pattern), its words typed. */
async function previewVideo(page: Page): Promise<void> {
  await page
    .locator('#file')
    .setInputFiles({ name: 'birthday.webm', mimeType: 'video/webm', buffer: fixture('recorded-vp8-opus.webm') });
  await page.getByLabel('What you say (shown as captions)').fill(transcript);
  await page.waitForFunction("!document.getElementById('send').disabled");
  await page.waitForFunction("document.getElementById('playback').readyState >= 2");
}

async function sendVideo(page: Page): Promise<void> {
  await previewVideo(page);
  await page.getByRole('button', { name: 'Send video' }).click();
  await page.getByRole('status').filter({ hasText: 'Thank you!' }).waitFor({ timeout: 15_000 });
  // The picture shows the thank-you whole, and not the focus ring of the button just pressed.
  await page.evaluate(
    "document.activeElement && document.activeElement.blur(); document.getElementById('status').scrollIntoView({ block: 'center' })",
  );
}

/** The watch page before play (the poster), or paused at `captionAt` seconds with that moment's caption. */
async function openWatchPage(page: Page, options: { captionAt?: number } = {}): Promise<void> {
  await page.goto(`${app.baseUrl}/watch/${watched.uuid}`);
  await page.waitForFunction(
    "(() => { const v = document.getElementById('message'); return v.readyState >= 1 && v.querySelector('track').readyState === 2; })()",
    undefined,
    { timeout: 10_000 },
  );
  if (options.captionAt === undefined) {
    await page.waitForFunction(
      `new Promise((resolve) => { const i = new Image(); i.onload = () => resolve(true); i.src = '/watch/${watched.uuid}/poster'; })`,
    );
    return;
  }
  // Started from the reveal's play button, then held at that moment.
  await page.locator('#play').click();
  await page.evaluate(`new Promise((resolve) => {
    const v = document.getElementById('message');
    v.pause();
    v.addEventListener('seeked', resolve, { once: true });
    v.currentTime = ${options.captionAt};
  })`);
  await page.waitForFunction(
    "document.getElementById('message').textTracks[0].activeCues?.length > 0 && document.getElementById('message').readyState >= 2",
  );
}

/** The recipient's "Say thank you" under the gift, a note typed; sent when `send`. */
async function writeThanks(page: Page, options: { send?: boolean } = {}): Promise<void> {
  await page.goto(`${app.baseUrl}/watch/${watched.uuid}`);
  // The invitation to reply comes once she has watched: played to its end.
  await page.locator('#play').click();
  await page.locator('#thanks-note-text').waitFor({ timeout: 20_000 });
  await page.locator('#thanks-note-text').fill(thanksNote);
  if (options.send) {
    await page.locator('#thanks-send-note').click();
    await page.locator('#thanks-note-status').filter({ hasText: 'Thank you!' }).waitFor({ timeout: 15_000 });
  }
  await page.evaluate(
    "document.activeElement && document.activeElement.blur(); document.getElementById('thanks-note').scrollIntoView({ block: 'center' })",
  );
}

/** The sender's own page of the reply (`/thanks/{key}`, the link their e-mail carries). */
async function openThanksPage(page: Page): Promise<void> {
  const reply = await app.services.database.db
    .selectFrom('thanks')
    .select('key')
    .where('order_id', '=', watched.id)
    .executeTakeFirstOrThrow();
  await page.goto(`${app.baseUrl}/thanks/${reply.key}`);
  await page.locator('#thanks-note').waitFor();
}

beforeAll(async () => {
  app = await startVideoTestApp({ queue: 'bullmq' });
  store = await app.createAccount('Maple & Thread');
  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);

  watched = await newOrder();
  // bypassCSP: the waits below are expressions Playwright evaluates in the page, which its policy forbids.
  const page = await browser.newPage({ bypassCSP: true });
  await sendVideo(await openRecordPage(page, watched));
  await page.close();
  await eventually(
    async () =>
      (await store.request('GET', `/v1/orders/${watched.id}`)).body.video_processed === '1' ? true : undefined,
    20_000,
    'the video to be processed',
  );
  await eventually(
    async () => ((await fetch(`${app.baseUrl}/watch/${watched.uuid}/poster`)).ok ? true : undefined),
    15_000,
    'the poster frame',
  );
  await app.services.orders.markSent(watched.id, {
    sendId: 'snd_screenshots',
    channel: 'email',
    providerMessageId: 'screenshots',
    at: new Date(),
  });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('the record, watch and thank-you pages on a phone and a desktop', async () => {
  for (const shot of shots) {
    for (const [device, viewport] of Object.entries(devices)) {
      const page = await browser.newPage({ viewport, bypassCSP: true, reducedMotion: 'reduce' });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        await shot.show(page);
        await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
        await page.screenshot({ path: out(`${shot.name}-${device}`), fullPage: false });
        expect(problems, `${shot.name} on ${device}`).toEqual([]);
      } finally {
        await page.close();
      }
    }
  }
});
