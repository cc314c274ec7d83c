import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/errors.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { requestContext } from '../../src/http/request-context.ts';
import { createLogger } from '../../src/logger.ts';

/** The error middleware's log lines: an outage is one warn line without a stack; a bug keeps its stack. */
const lines: Record<string, unknown>[] = [];
let server: ReturnType<Koa['listen']>;
let base: string;

beforeAll(async () => {
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const app = new Koa();
  app.use(requestContext(logger));
  app.use(errorHandler);
  app.use((ctx) => {
    if (ctx.path === '/database-down')
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap'), {
        code: 'ECONNREFUSED',
      });
    if (ctx.path === '/shopify-down') throw new ServiceUnavailableError('Shopify could not be reached.');
    throw new Error('a bug');
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('logs a 503 from a dependency outage at warn, in one line without a stack trace', async () => {
  for (const path of ['/database-down', '/shopify-down']) {
    lines.length = 0;
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const failures = lines.filter((line) => String(line.msg).startsWith('request failed'));
    expect(failures, path).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 40, msg: 'request failed: a dependency is unavailable' });
    expect(JSON.stringify(failures[0])).not.toMatch(/stack|\\n|at TCPConnectWrap/);
  }
});

it('still logs an unexpected 500 at error level with its stack', async () => {
  lines.length = 0;
  expect((await fetch(`${base}/bug`)).status).toBe(500);
  const failures = lines.filter((line) => line.msg === 'request failed');
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({
    level: 50,
    err: { message: 'a bug', stack: expect.stringContaining('Error: a bug') },
  });
});
