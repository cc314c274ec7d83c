import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDoorstep, type DoorstepProcess, type RunningDoorstep } from '../support/processes.ts';

/**
 * Issue 31, 5: a client's mistake is the client's — logged once, at info or warn, as JSON — never a
 * server error, and nothing is printed outside the JSON log. In a real `npm start` process, whose
 * whole output is read.
 */
let doorstep: RunningDoorstep;
let proc: DoorstepProcess;
let port: number;

beforeAll(async () => {
  doorstep = await startDoorstep({ name: 'client-mistakes', env: { LOG_LEVEL: 'debug' } });
  proc = doorstep.proc;
  port = Number(doorstep.env.PORT);
}, 120_000);
afterAll(async () => {
  await doorstep?.stop();
});

/** Lines written since `from`, each parsed; a line that is not JSON fails the test with itself. */
function linesSince(from: number): Array<{ level: number; msg: string; [field: string]: unknown }> {
  return proc
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string; [field: string]: unknown };
      } catch {
        throw new Error(`printed outside the JSON log: ${line.slice(0, 200)}`);
      }
    });
}

/**
 * Headers and the first part of a large body; once the early answer arrives, the rest of the body
 * and then bytes that are no request at all (`BOGUS …`), as a client that ignores the answer does.
 */
function sendPastAnEarlyAnswer(head: string, bodyBytes: number): Promise<string> {
  return new Promise((resolve) => {
    const body = Buffer.alloc(bodyBytes, 'a');
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`${head}Content-Length: ${bodyBytes}\r\n\r\n`);
      socket.write(body.subarray(0, 65_536));
    });
    socket.once('data', (chunk) => {
      answer = chunk.toString().split('\r\n')[0]!;
      socket.write(body.subarray(65_536), () => socket.write('BOGUS /nothing HTTP/1.1\r\nHost: x\r\n\r\n'));
    });
    const done = () => resolve(answer);
    socket.on('error', done);
    socket.on('close', done);
    setTimeout(() => socket.destroy(), 5_000);
  });
}

describe('client mistakes in the log', () => {
  it('an OAuth callback with junk parameters: 400, and nothing logged as an error', async () => {
    const from = proc.output().length;
    const response = await fetch(
      `http://127.0.0.1:${port}/shopify/auth/callback?shop=junk.myshopify.com&code=x&state=y&hmac=z&timestamp=1`,
      // A browser's (the library takes Node's own for a bot and stops before the cookie check).
      { headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36' } },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = linesSince(from);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    // Said once: the answer's own line, not the library's besides.
    // Said once: the answer's own line (the library's "Could not find OAuth cookie" is debug).
    const aboutIt = lines.filter((line) => line.level >= 30 && /OAuth|auth\/callback/.test(JSON.stringify(line)));
    expect(aboutIt).toEqual([expect.objectContaining({ level: 30, path: '/shopify/auth/callback', status: 400 })]);
  });

  it('body bytes after an early 401 or 413, then junk: every line is JSON, none an error', async () => {
    const from = proc.output().length;
    const unauthorized = await sendPastAnEarlyAnswer(
      'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n',
      2_000_000,
    );
    const tooLarge = await sendPastAnEarlyAnswer(
      // A well-formed signature, so the body's size is what refuses it.
      `POST /shopify/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Shopify-Topic: orders/create\r\nX-Shopify-Shop-Domain: a.myshopify.com\r\nX-Shopify-Hmac-Sha256: ${Buffer.alloc(32).toString('base64')}\r\n`,
      6_000_000,
    );
    // Junk right behind a whole request, while its answer is still being made: the parser's error
    // reaches the request in flight (Koa's error event; its default printer wrote plain text).
    const pipelined = await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(
          'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}BOGUS /nothing HTTP/1.1\r\n\r\n',
        ),
      );
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      setTimeout(() => socket.destroy(), 5_000);
    });
    expect(pipelined).toBeUndefined();
    expect(unauthorized).toBe('HTTP/1.1 401 Unauthorized');
    expect(tooLarge).toBe('HTTP/1.1 413 Payload Too Large');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(linesSince(from).filter((line) => line.level >= 50)).toEqual([]);
  });
});
