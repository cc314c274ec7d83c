import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from './video-test-app.ts';

/** The pages' scripts as the app serves them: bundled at start, from our origin, under a strict CSP. */
let app: VideoTestApp;
let store: TestAccount;

beforeAll(async () => {
  app = await startVideoTestApp({ queue: 'manual' });
  store = await app.createAccount();
});
afterAll(() => app?.close());

interface PageScript {
  src: string;
  integrity: string;
  nonce: string;
  csp: string;
}

/** The one external script of a page, and the page's CSP. */
async function pageScript(path: string): Promise<PageScript> {
  const page = await app.request('GET', path);
  expect(page.status).toBe(200);
  const tags = [...page.text.matchAll(/<script src="([^"]+)" integrity="([^"]+)" nonce="([^"]+)"><\/script>/g)];
  expect(tags).toHaveLength(1);
  const [, src, integrity, nonce] = tags[0]!;
  return { src: src!, integrity: integrity!, nonce: nonce!, csp: page.headers.get('content-security-policy')! };
}

async function orderWithVideo(): Promise<{ uuid: string }> {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  await store.request('PUT', `/v1/orders/${order.id}/video`, fixture('recorded-vp8-opus.webm'), {
    'Content-Type': 'video/webm',
  });
  expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  return order;
}

describe('the pages’ bundled scripts', () => {
  it('are served minified from our origin as JavaScript, cached for good under a content-hashed URL', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const watched = await orderWithVideo();
    for (const [path, name] of [
      [`/record/${order.uuid}`, 'record-page'],
      [`/watch/${watched.uuid}`, 'watch-page'],
    ] as const) {
      const script = await pageScript(path);
      expect(script.src).toMatch(new RegExp(`^/assets/${name}\\.[0-9a-f]{16}\\.js$`));
      // Allowed by the page's nonce alone: nothing inline runs, no 'unsafe-inline', no 'self'.
      expect(script.csp).toContain(`script-src 'nonce-${script.nonce}';`);
      expect(script.csp).not.toContain('unsafe-inline');

      const response = await fetch(`${app.baseUrl}${script.src}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const body = await response.text();
      // The browser refuses the script unless these bytes hash to the tag's integrity.
      expect(`sha256-${createHash('sha256').update(body).digest('base64')}`).toBe(script.integrity);
      expect(script.src).toContain(createHash('sha256').update(body).digest('hex').slice(0, 16));
      // Bundled and minified for the browser: no indented lines (the few line breaks left are inside
      // tus-js-client's template strings), no imports, no TypeScript left.
      expect(body).not.toMatch(/\n[ \t]+\S/);
      expect(body.trim().split('\n').length).toBeLessThanOrEqual(5);
      expect(body).not.toMatch(/\bimport\b|: HTMLElement|\bas T\b/);
    }
  });

  it('are built once: every page view names the same script, only the nonce is new', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const first = await pageScript(`/record/${order.uuid}`);
    const second = await pageScript(`/record/${order.uuid}`);
    expect(second.src).toBe(first.src);
    expect(second.nonce).not.toBe(first.nonce);
  });

  it('answers HEAD, and 404 for any other name or hash', async () => {
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    const { src } = await pageScript(`/record/${order.uuid}`);
    const head = await fetch(`${app.baseUrl}${src}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    for (const path of [
      src.replace(/\.[0-9a-f]{16}\.js$/, '.0000000000000000.js'),
      '/assets/record-page.js',
      '/assets/page-data.ts',
      '/assets/..%2Fbrowser-assets.ts',
    ]) {
      expect((await app.request('GET', path)).status, path).toBe(404);
    }
  });
});
