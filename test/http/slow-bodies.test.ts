import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 13 item 12: a body that trickles or goes silent cannot hold a socket (and the memory of
 * what it sent) beyond the deadline, and only so many bodies may arrive at once.
 */
const DEADLINE_MS = 600;
const IN_FLIGHT = 10;
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    env: { BODY_READ_TIMEOUT_MS: String(DEADLINE_MS), BODY_READS_IN_FLIGHT: String(IN_FLIGHT) },
  });
});
afterAll(async () => {
  await app?.close();
});

interface Answer {
  status: number;
  closedAfterMs: number;
  text: string;
}

/** Sends `head` (request line and headers) and the start of a body, then nothing; resolves when the server closes. */
function silentRequest(head: string, sent: string): Promise<Answer> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('error', reject);
    socket.once('close', () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        closedAfterMs: Date.now() - started,
        text,
      }),
    );
    socket.write(`${head}Host: ${hostname}\r\n\r\n${sent}`);
  });
}

/** A webhook whose body declares `declared` bytes and sends only `sent`. */
const silentBody = (path: string, declared: number, sent: string) =>
  silentRequest(
    `POST ${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n` +
      'X-Shopify-Topic: orders/create\r\nX-Shopify-Hmac-Sha256: AAAA\r\nX-Shopify-Shop-Domain: slow.myshopify.com\r\n' +
      'X-Shopify-Webhook-Id: slow\r\nX-Shopify-API-Version: 2026-07\r\n',
    sent,
  );

describe('slow request bodies', () => {
  it('a declared 100-byte webhook body that stops after 2 bytes gets 408 and its socket closed at the deadline', async () => {
    const answer = await silentBody('/shopify/webhooks', 100, '{"');
    expect(answer.status).toBe(408);
    expect(answer.text).toContain('"request_timeout"');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(answer.closedAfterMs).toBeLessThan(DEADLINE_MS + 5_000);
  });

  it('the same for a JSON body on /v1 (after authentication)', async () => {
    const store = await app.createAccount('Slow bodies');
    const authorization = `Basic ${Buffer.from(`${store.appId}:${store.apiKey}`).toString('base64')}`;
    const answer = await silentRequest(
      `POST /v1/orders HTTP/1.1\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n`,
      '{"name":',
    );
    expect(answer.status).toBe(408);
    expect(answer.closedAfterMs).toBeLessThan(DEADLINE_MS + 5_000);
  });

  it('beyond the bodies allowed in flight, new ones get 503 at once; every socket is let go', async () => {
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT * 3 }, () => silentBody('/shopify/webhooks', 5_000_000, 'x'.repeat(1000))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 408).length).toBeLessThanOrEqual(IN_FLIGHT);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(IN_FLIGHT * 2);
    expect(statuses.every((s) => s === 408 || s === 503)).toBe(true);
    for (const answer of answers) expect(answer.closedAfterMs).toBeLessThan(DEADLINE_MS + 5_000);
    // Once they are gone, a normal request gets through.
    expect((await app.request('GET', '/healthz')).status).toBe(200);
  });
});
