import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * What Node's parser refuses before Koa sees a request (a URL over 16 KB, bytes that are not HTTP)
 * is answered like every other bad request: a status and a JSON body saying what is wrong — not
 * Node's bare status line.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/**
 * Writes `bytes` on a fresh connection and reads until the server closes it; `then` is written once
 * the first answer has arrived (a second request on the kept-alive connection).
 */
function raw(bytes: string, then?: string): Promise<RawAnswer[]> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: hostname });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (then !== undefined && splitAnswers(text).length === 1) {
        socket.write(then);
        then = undefined;
      }
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(splitAnswers(text)));
    socket.write(bytes);
  });
}

function splitAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break; // the rest has not arrived yet
    const headers = rest.slice(0, headEnd);
    const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    if (body.length < length) break;
    answers.push({ status: Number(headers.slice(9, 12)), headers, body });
    rest = rest.slice(headEnd + 4 + length);
  }
  return answers;
}

describe('requests Node cannot parse', () => {
  it('a URL over 16 KB is a 431 with a JSON body saying what to shorten', async () => {
    const [answer, ...more] = await raw(`GET /v1/orders?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(more).toEqual([]);
    expect(answer?.status).toBe(431);
    expect(answer?.headers).toMatch(/content-type: application\/json/i);
    expect(answer?.headers).toMatch(/cache-control: no-store/i);
    expect(JSON.parse(answer!.body)).toEqual({
      error: { type: 'headers_too_large', message: expect.stringMatching(/shorter URL/) },
    });
  });

  it('bytes that are not HTTP are a 400 with a JSON body', async () => {
    const [answer] = await raw('HELLO THERE\r\n\r\n');
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body)).toEqual({
      error: { type: 'invalid_request', message: expect.stringMatching(/not valid HTTP/) },
    });
  });

  it('garbage after a finished request on a kept-alive connection: the first answer stands, the garbage gets its own 400', async () => {
    const answers = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n');
    expect(answers.map((answer) => answer.status)).toEqual([200, 400]);
    expect(JSON.parse(answers[1]!.body).error.type).toBe('invalid_request');
  });
});
