import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.ts';
import { chromiumForFile, pageWatchingProblems } from '../support/chromium.ts';
import { decodedMail } from '../support/mail-server.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { fixture, fixturePath, type VideoTestApp } from '../videos/video-test-app.ts';
import { thanksTestAppForFile, type MailServer } from './thanks-test-app.ts';

/**
 * Issue 14, "Done when": the thank-you flow end to end in a real Chromium against the real app, its
 * workers and a real SMTP server. The recipient answers on the watch page (a video from a file, or a
 * note); the sender's e-mail arrives with a link of its own, and that link shows the reply.
 */
let app: VideoTestApp;
let store: TestAccount;
let browser: Browser;
let mail: MailServer;

// A short undo window (the default is 5 minutes; the delay has its own test). Not none: the page
// sends the reply's poster right after the upload, while the worker already processes the video,
// and the e-mail, which shows the poster, must not win that race (in production the window does).
thanksTestAppForFile({ queue: 'bullmq', sendDelaySeconds: 5 }, (started) => ({ app, store, mail } = started));
chromiumForFile(
  (launched) => (browser = launched),
  ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
);

/** An order whose gift video went to its recipient: the watch page then offers "Say thank you". */
async function sentGift(sender: string): Promise<{ id: string; uuid: string }> {
  const order = (await store.request('POST', '/v1/orders', { ...validOrder, email: sender })).body;
  const upload = await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
    'Content-Type': 'video/webm',
  });
  expect(upload.status).toBe(200);
  await eventually(
    async () => (await store.request('GET', `/v1/orders/${order.id}`)).body.video_processed === '1' || undefined,
    20_000,
    'the gift to be processed',
  );
  await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
  await eventually(
    async () => (await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at || undefined,
    20_000,
    'the gift to be sent',
  );
  return order;
}

/** The sender's thank-you e-mail, once it arrived at the SMTP server. */
async function thanksMailTo(sender: string): Promise<string> {
  const message = await eventually(
    async () => mail.messages.find((m) => m.to.includes(sender) && /sent you a thank-you/.test(decodedMail(m.raw))),
    20_000,
    "the sender's thank-you e-mail",
  );
  return decodedMail(message.raw);
}

/** The link in the e-mail, on the test's own server (PUBLIC_URL is https://doorstep.test). */
function thanksLink(text: string): string {
  const match = /https:\/\/doorstep\.test(\/thanks\/[0-9a-f-]{36})/.exec(text);
  expect(match, 'the e-mail names the thank-you link').not.toBeNull();
  return `${app.baseUrl}${match![1]}`;
}

const newPage = () => pageWatchingProblems(browser);

describe('the thank-you reply in a browser', () => {
  it('the recipient sends a video back; the sender gets an e-mail whose link plays it', async () => {
    const sender = `ann-${Date.now()}@example.com`;
    const order = await sentGift(sender);
    const watchUrl = `${app.baseUrl}/watch/${order.uuid}`;
    expect(await seriousViolations(browser, watchUrl)).toEqual([]);

    const { page, problems } = await newPage();
    try {
      await page.goto(watchUrl);
      // The invitation comes once the gift is watched.
      expect(await page.getByRole('heading', { name: 'Say thank you' }).isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Play the video message' }).click();
      await page.getByRole('heading', { name: 'Say thank you' }).waitFor({ timeout: 20_000 });
      await page.locator('#thanks-file').setInputFiles(fixturePath('recorded-vp8-opus.webm'));
      const send = page.getByRole('button', { name: 'Send thank-you video' });
      await expect.poll(() => send.isEnabled()).toBe(true);
      await send.click();
      // Said once the reply is prepared (the page follows its status_url), not when its bytes arrived.
      await page
        .getByRole('status')
        .filter({ hasText: 'gets your thank-you in about 1 minute' })
        .waitFor({ timeout: 30_000 });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }

    const text = await thanksMailTo(sender);
    expect(text).toContain('Maple &amp; Thread'); // the store's branding, HTML part
    expect(text).toContain('Bob Recipient watched your video message');
    // The reply's poster frame (drawn by the recorder while previewing) is the e-mail's call to action.
    expect(text).toMatch(/src="https:\/\/doorstep\.test\/thanks\/[0-9a-f-]{36}\/poster"/);
    const link = thanksLink(text);
    // Exactly once: one thank-you e-mail for one reply, also after the dispatcher ran again.
    await app.services.dispatcher.dispatchDue(100);
    expect(mail.messages.filter((m) => m.to.includes(sender) && /thank-you/.test(decodedMail(m.raw)))).toHaveLength(1);

    const { page: senderPage, problems: senderProblems } = await newPage();
    try {
      await senderPage.goto(link);
      await senderPage.getByRole('heading', { name: 'A thank-you from Bob Recipient' }).waitFor();
      const video = senderPage.locator('#thanks-video');
      await expect
        .poll(() => video.evaluate((v) => (v as unknown as { readyState: number }).readyState))
        .toBeGreaterThan(0);
      expect(await senderPage.locator('.store-name').textContent()).toBe('Maple & Thread');
      expect(senderProblems).toEqual([]);
    } finally {
      await senderPage.close();
    }
    expect(await seriousViolations(browser, link)).toEqual([]);

    // Sent: the watch page says so, offers no replacement, and the server refuses one.
    const { page: after } = await newPage();
    try {
      await after.goto(watchUrl);
      expect(await after.locator('#thanks-state').textContent()).toBe('Your thank-you video was sent to Ann Sender.');
      expect(await after.locator('#thanks-file').count()).toBe(0);
    } finally {
      await after.close();
    }
    expect(await seriousViolations(browser, watchUrl)).toEqual([]);
    const late = await app.request('PUT', `/watch/${order.uuid}/thanks/note`, { body: { note: 'Again!' } });
    expect(late.status).toBe(409);

    const types = (await store.request('GET', `/v1/orders/${order.id}/events`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(types).toEqual(expect.arrayContaining(['thanks.recorded', 'thanks.sent']));
  }, 90_000); // a whole story in a browser: the gift processed and sent, watched, a reply sent and delivered

  it('without JavaScript, offers no reply it could not send, and says why (recipient probe)', async () => {
    const order = await sentGift(`ann-noscript-${Date.now()}@example.com`);
    await app.services.orders.markViewed(order.id); // watched: the thank-you part shows at once
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/watch/${order.uuid}`);
      await page.getByRole('heading', { name: 'Say thank you' }).waitFor();
      expect(await page.getByRole('button', { name: 'Send note' }).isVisible()).toBe(false);
      expect(await page.getByLabel('Or write a note').isVisible()).toBe(false);
      // A browser without scripts shows <noscript> (Playwright's switch turns scripts off, not the
      // parser's scripting flag, so it is read here rather than seen).
      expect(await page.locator('section.thanks noscript').textContent()).toContain(
        'open this page in a browser with JavaScript turned on',
      );
    } finally {
      await context.close();
    }
  });

  it('the recipient writes a note; the sender gets it in the e-mail and on the page', async () => {
    const sender = `ann-note-${Date.now()}@example.com`;
    const order = await sentGift(sender);
    const { page, problems } = await newPage();
    try {
      await page.goto(`${app.baseUrl}/watch/${order.uuid}`);
      await page.getByRole('button', { name: 'Play the video message' }).click();
      await page.getByLabel('Or write a note').fill('Thank you, Ann!\nThe scarf is lovely.');
      await page.getByRole('button', { name: 'Send note' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'gets your thank-you in about 1 minute' })
        .first()
        .waitFor({ timeout: 15_000 });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
    const text = await thanksMailTo(sender);
    expect(text).toContain('The scarf is lovely.');
    const link = thanksLink(text);
    const { page: senderPage } = await newPage();
    try {
      await senderPage.goto(link);
      expect(await senderPage.locator('#thanks-note').textContent()).toBe('Thank you, Ann!\nThe scarf is lovely.');
    } finally {
      await senderPage.close();
    }
    expect(await seriousViolations(browser, link)).toEqual([]);
  }, 90_000); // a whole story in a browser: the gift processed and sent, watched, a reply sent and delivered
});
