import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHandler } from '../../src/http/node-handler.ts';
import { outside } from '../../src/http/outside.ts';

/** A public router mounted `outside('/v1', …)` is skipped by API requests and still answers its own paths. */
describe('outside', () => {
  let server: http.Server;
  let base: string;
  const routerSaw: string[] = [];

  beforeAll(async () => {
    const app = new Koa();
    const publicRoutes = new Router();
    publicRoutes.get('/healthz', (ctx) => void (ctx.body = 'public'));
    publicRoutes.get('/v1x', (ctx) => void (ctx.body = 'public v1x'));
    const routes = publicRoutes.routes();
    // Records every path the router is handed, matched or not.
    const recorded = (ctx: Koa.Context, next: Koa.Next) => {
      routerSaw.push(ctx.path);
      return routes(ctx as Parameters<typeof routes>[0], next);
    };
    app.use(outside('/v1', recorded));
    app.use((ctx) => void (ctx.body = `api ${ctx.path}`));
    server = http.createServer(nodeHandler(app));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => (await fetch(`${base}${path}`)).text();

  it('hands requests under the prefix straight on', async () => {
    routerSaw.length = 0;
    expect(await get('/v1/orders/ord_1')).toBe('api /v1/orders/ord_1');
    expect(await get('/v1')).toBe('api /v1');
    expect(routerSaw).toEqual([]);
  });

  it('runs the middleware for every other path, including look-alikes of the prefix', async () => {
    routerSaw.length = 0;
    expect(await get('/healthz')).toBe('public');
    expect(await get('/v1x')).toBe('public v1x');
    expect(routerSaw).toEqual(['/healthz', '/v1x']);
  });
});
