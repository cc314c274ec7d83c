import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumForFile } from '../support/chromium.ts';
import { AXE_SOURCE, seriousViolations as seriousViolationsIn } from '../support/axe.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, uploadFromRecordPage, videoTestAppForFile, type VideoTestApp } from '../videos/video-test-app.ts';

/**
 * Issue 14: axe-core (the engine behind Lighthouse's and Deque's audits, from node_modules, nothing
 * from a CDN) runs in a real Chromium on the pages people outside the merchant's admin meet: the
 * landing page, the record page and the watch page before and after the video is there. A serious or
 * critical violation fails, with axe's own description and the offending elements.
 */
let app: VideoTestApp;
let store: TestAccount;
let browser: Browser;

videoTestAppForFile({ queue: 'manual' }, (started) => ({ app, store } = started));
chromiumForFile((launched) => (browser = launched));

const seriousViolations = (url: string) => seriousViolationsIn(browser, url);

describe('axe finds no serious accessibility violation', () => {
  it('on the landing page', async () => {
    expect(await seriousViolations(`${app.baseUrl}/`)).toEqual([]);
  });

  it('on the privacy and support pages', async () => {
    for (const page of ['/privacy', '/support']) expect(await seriousViolations(`${app.baseUrl}${page}`)).toEqual([]);
  });

  it('on the record page', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect(await seriousViolations(`${app.baseUrl}/record/${order.uuid}`)).toEqual([]);
  });

  it('on the watch page, before and after the video is there', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    expect(await seriousViolations(`${app.baseUrl}/watch/${order.uuid}`)).toEqual([]);
    const upload = await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
      'Content-Type': 'video/webm',
    });
    expect(upload.status).toBe(200);
    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
    expect(await seriousViolations(`${app.baseUrl}/watch/${order.uuid}`)).toEqual([]);
  });

  it('on the watch page whose player has a captions track', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const upload = await uploadFromRecordPage(app, order.uuid);
    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
    const saved = await app.request('PUT', upload.body.transcript_url, { body: { transcript: 'Happy birthday!' } });
    expect(saved.status).toBe(200);
    expect(await app.request('GET', `/watch/${order.uuid}`).then((r) => r.text)).toContain('<track kind="captions"');
    expect(await seriousViolations(`${app.baseUrl}/watch/${order.uuid}`)).toEqual([]);
  });

  it('fits a phone with a long unbroken name and title: nothing scrolls sideways (probe finding)', async () => {
    const long = 'A'.repeat(150);
    const order = (
      await store.request('POST', '/v1/orders', { ...validOrder, name: long, recipient_name: long, video_title: long })
    ).body;
    await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
      'Content-Type': 'video/webm',
    });
    expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      for (const path of [`/record/${order.uuid}`, `/watch/${order.uuid}`]) {
        await page.goto(`${app.baseUrl}${path}`);
        const widths = await page.evaluate<{ scroll: number; client: number }>(
          '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
        );
        expect({ path, ...widths }).toEqual({ path, scroll: widths.client, client: widths.client });
      }
    } finally {
      await context.close();
    }
  });

  it('and the check itself catches a page that has one', async () => {
    // A page axe must fault (an image without alt text, an unlabeled input): proves the check runs.
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.setContent('<html lang="en"><title>t</title><main><img src="x.png"><input></main></html>');
      await page.evaluate(AXE_SOURCE);
      const ids = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string }> }> } })
          .axe;
        return (await axe.run()).violations.map((v) => v.id);
      });
      expect(ids).toEqual(expect.arrayContaining(['image-alt', 'label']));
    } finally {
      await context.close();
    }
  });
});
