import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadRecordLinks,
  RECORD_LINKS_PATH,
  recordLinksUrl,
} from '../../../extensions/record-video-link/src/record-links.ts';

/** A tiny stand-in for the Doorstep endpoint: answers in turn from a script, remembers each request. */
interface ScriptedServer {
  url: string;
  requests: Array<{ path: string; orderId: string | null; authorization: string | undefined }>;
  close(): Promise<void>;
}

type Answer = { status: number; body?: unknown } | 'hang up';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function scriptedServer(answers: Answer[]): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url!, 'http://localhost');
    requests.push({
      path: url.pathname,
      orderId: url.searchParams.get('order_id'),
      authorization: request.headers.authorization,
    });
    // The last answer repeats once the script runs out.
    const answer = answers[Math.min(requests.length, answers.length) - 1]!;
    if (answer === 'hang up') {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { 'Content-Type': 'application/json' });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scripted = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(scripted);
  return scripted;
}

/** A token getter like `shopify.sessionToken.get`, handing out a new token each call. */
function tokens() {
  let issued = 0;
  return { get: async () => `token-${++issued}`, issued: () => issued };
}

const FAST = [5, 5, 5, 5];
const ORDER = 'gid://shopify/OrderIdentity/5000000000123';
const ready = (messages: unknown[]) => ({ status: 200, body: { status: 'ready', messages } });
const pending = { status: 200, body: { status: 'pending' } };
const bob = { recipient_name: 'Bob', record_url: 'https://doorstep.test/record/u-1', recorded: false };
const carol = { recipient_name: 'Carol', record_url: 'https://doorstep.test/record/u-2', recorded: true };

/** Loads ORDER's record links from `appUrl`: fresh tokens and quick retries unless the test says otherwise. */
const load = (appUrl: string, options: Partial<Parameters<typeof loadRecordLinks>[0]> = {}) =>
  loadRecordLinks({ appUrl, orderId: ORDER, getSessionToken: tokens().get, retryDelaysMs: FAST, ...options });

describe('loadRecordLinks', () => {
  it('asks the endpoint with the order id and a fresh Bearer token, and shows each message', async () => {
    const server = await scriptedServer([ready([bob, carol])]);
    const token = tokens();
    const view = await load(server.url, { getSessionToken: token.get });
    expect(view).toEqual({
      show: 'messages',
      messages: [
        { recipientName: 'Bob', recordUrl: 'https://doorstep.test/record/u-1', recorded: false },
        { recipientName: 'Carol', recordUrl: 'https://doorstep.test/record/u-2', recorded: true },
      ],
    });
    expect(server.requests).toEqual([{ path: RECORD_LINKS_PATH, orderId: ORDER, authorization: 'Bearer token-1' }]);
  });

  it('asks again while the answer is pending (the webhook is late), with a new token each time', async () => {
    const server = await scriptedServer([pending, pending, ready([bob])]);
    const token = tokens();
    const view = await load(server.url, { getSessionToken: token.get });
    expect(view).toMatchObject({ show: 'messages', messages: [{ recipientName: 'Bob' }] });
    expect(server.requests.map((r) => r.authorization)).toEqual(['Bearer token-1', 'Bearer token-2', 'Bearer token-3']);
  });

  it('gives up after the last delay and shows nothing (an order without a video message stays pending)', async () => {
    const server = await scriptedServer([pending]);
    const view = await load(server.url, { retryDelaysMs: [5, 5, 5] });
    expect(view).toEqual({ show: 'nothing' });
    expect(server.requests).toHaveLength(4);
  });

  it('asks again after a server error, a 429 or a dropped connection', async () => {
    const server = await scriptedServer([{ status: 503 }, { status: 429 }, 'hang up', ready([bob])]);
    const view = await load(server.url);
    expect(view).toMatchObject({ show: 'messages', messages: [{ recipientName: 'Bob' }] });
    expect(server.requests).toHaveLength(4);
  });

  it('asks again when the token cannot be had yet, and when nothing listens', async () => {
    const server = await scriptedServer([ready([bob])]);
    let calls = 0;
    const flakyToken = async () => {
      if (++calls === 1) throw new Error('no token yet');
      return 'token';
    };
    const view = await load(server.url, { getSessionToken: flakyToken });
    expect(view).toMatchObject({ show: 'messages' });
    expect(server.requests).toHaveLength(1);

    const gone = await scriptedServer([ready([bob])]);
    await gone.close();
    const unreachable = await load(gone.url, { retryDelaysMs: [5, 5] });
    expect(unreachable).toEqual({ show: 'nothing' });
  });

  it('stops at once on an answer that will not change: 401, 400, or ready with no message', async () => {
    for (const answer of [
      { status: 401, body: { error: { type: 'unauthorized', message: 'x' } } },
      { status: 400, body: { error: { type: 'invalid_request', message: 'x' } } },
      ready([]),
      { status: 200, body: 'not an object' },
    ]) {
      const server = await scriptedServer([answer]);
      const view = await load(server.url);
      expect({ answer, view, requests: server.requests.length }).toEqual({
        answer,
        view: { show: 'nothing' },
        requests: 1,
      });
    }
  });

  it('shows only well-formed messages with a web link (no javascript: URL reaches a button)', async () => {
    const server = await scriptedServer([
      ready([
        { ...bob, record_url: 'javascript:alert(1)' },
        { ...bob, recorded: 'yes' },
        { recipient_name: 42, record_url: bob.record_url, recorded: false },
        null,
        carol,
      ]),
    ]);
    const view = await load(server.url);
    expect(view).toEqual({
      show: 'messages',
      messages: [{ recipientName: 'Carol', recordUrl: carol.record_url, recorded: true }],
    });
  });

  it('asks nothing without an app URL or an order id', async () => {
    const token = tokens();
    for (const [appUrl, orderId] of [
      [undefined, ORDER],
      ['', ORDER],
      ['not a url', ORDER],
      ['ftp://doorstep.test', ORDER],
      ['https://doorstep.test', undefined],
    ] as const) {
      expect(await loadRecordLinks({ appUrl, orderId, getSessionToken: token.get, retryDelaysMs: FAST })).toEqual({
        show: 'nothing',
      });
    }
    expect(token.issued()).toBe(0);
  });

  it('stops waiting when the extension goes away (aborted), showing nothing', async () => {
    const server = await scriptedServer([pending]);
    const controller = new AbortController();
    const loading = load(server.url, { retryDelaysMs: [60_000], signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    controller.abort();
    expect(await loading).toEqual({ show: 'nothing' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe('recordLinksUrl', () => {
  it("uses the app URL's origin (APP_URL may name the embedded admin's path) and encodes the order id", () => {
    expect(recordLinksUrl('https://doorstep.example.com/shopify/app', 'gid://shopify/Order/1')).toBe(
      'https://doorstep.example.com/shopify/extension/record-links?order_id=gid%3A%2F%2Fshopify%2FOrder%2F1',
    );
  });
});
