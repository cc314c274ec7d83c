import type Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/app.ts';
import { orderJson } from '../../src/orders/response-schemas.ts';
import { serializeOrder, type OrderRow } from '../../src/orders/serializer.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts';
import { ApiDocument, METHODS, type Json } from './api-document.ts';

let app: TestApp;
let store: TestAccount;
let api: ApiDocument;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createAccount();
  api = await ApiDocument.fetch(app.baseUrl);
});
afterAll(async () => {
  await app.close();
});

/** Every route of every router the app mounts, as "METHOD /path/{param}" (the routers' own stack). */
function serverRoutes(): string[] {
  const koa = createHttpApp(app.services);
  const routes = new Set<string>();
  for (const middleware of koa.middleware) {
    const router = (middleware as { router?: Router }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      // HEAD comes with every GET route; the document describes the GET.
      for (const method of layer.methods.filter((m) => m !== 'HEAD'))
        routes.add(`${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return [...routes];
}

describe('the OpenAPI document', () => {
  it('is public: no credentials needed, while the rest of /v1 still needs them', async () => {
    const response = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await fetch(`${app.baseUrl}/v1/orders`)).status).toBe(401);
    expect((await fetch(`${app.baseUrl}/v1/openapi.json`, { method: 'POST' })).status).toBe(401);
  });

  it('is a structurally valid OpenAPI 3.1 document', () => {
    const doc = api.document;
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect((doc.servers as Json[])[0]!.url).toBe('https://doorstep.test');
    expect(api.components('securitySchemes').basicAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'basic' }),
    );
    expect(doc.security).toEqual([{ basicAuth: [] }]);

    const operationIds = api.operations().map(([, , operation]) => operation.operationId);
    expect(new Set(operationIds).size).toBe(operationIds.length);
    for (const [method, path, operation] of api.operations()) {
      const where = `${method} ${path}`;
      expect(path, where).toMatch(/^\//);
      expect(Object.keys(operation.responses as Json).length, where).toBeGreaterThan(0);
      // Every {param} in the path is declared as a required path parameter, and no other.
      const declared = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(declared.map((p) => p.name).sort(), where).toEqual(inPath.sort());
      expect(
        declared.every((p) => p.required === true),
        where,
      ).toBe(true);
    }
    // Keys of a path item are only HTTP methods (plus the item's own fields, which we do not use).
    for (const item of Object.values(doc.paths as Record<string, Json>))
      for (const key of Object.keys(item)) expect(METHODS as readonly string[]).toContain(key);
  });

  it('has only $refs that resolve, and component schemas that compile as strict JSON Schema 2020-12', () => {
    const refs = [...JSON.stringify(api.document).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of new Set(refs)) {
      const [, kind, name] = /^#\/components\/(\w+)\/([\w-]+)$/.exec(ref) ?? [];
      expect(kind && name && api.components(kind)[name], ref).toBeTruthy();
    }
    // Compiling every documented answer compiles every schema it references (strict Ajv throws on an
    // unknown keyword or format).
    for (const [method, path, operation] of api.operations())
      for (const status of Object.keys(operation.responses as Json))
        expect(
          () => api.check(method, path.replace(/\{[^}]+\}/g, 'x'), Number(status), {}),
          `${method} ${path} ${status}`,
        ).not.toThrow();
  });

  it('documents the error body, Basic auth, Idempotency-Key and paging', () => {
    const errorBody = api.components('schemas').Error!;
    expect((errorBody.properties as Json).error).toMatchObject({ required: ['type', 'message'] });
    const create = (api.document.paths as Record<string, Json>)['/v1/orders']!.post as Json;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    const list = (api.document.paths as Record<string, Json>)['/v1/orders']!.get as Json;
    expect((list.parameters as Json[]).map((p) => p.name)).toEqual(['limit', 'cursor', 'status', 'delivered']);
    expect(api.components('schemas').OrderPage!.required).toEqual(['data', 'has_more', 'next_cursor']);
    expect(api.components('responses').Unauthorized!.headers).toHaveProperty('WWW-Authenticate');
  });
});

describe('the document and the server agree', () => {
  it('documents every /v1 route the server has, and nothing it does not have', () => {
    const server = serverRoutes().filter((route) => / \/v1(\/|$)/.test(route));
    const documented = api.operations().map(([method, path]) => `${method} ${path}`);
    expect(server.length).toBeGreaterThan(10);
    expect(documented.sort()).toEqual(server.sort());
  });

  it('answers every documented operation from a route (never the router’s 404 or 405)', async () => {
    const concrete = (path: string) =>
      path
        .replace('{orderId}', 'ord_000000000000000000000000')
        .replace('{month}', '2026-11')
        .replace('{id}', 'dex_none');
    for (const [method, path] of api.operations()) {
      const video = path.endsWith('/video');
      const response = await store.request(
        method,
        concrete(path),
        method === 'PUT' || method === 'POST' ? (video ? Buffer.from('not a video') : {}) : undefined,
        video ? { 'Content-Type': 'video/webm' } : {},
      );
      const where = `${method} ${path} → ${response.status} ${response.text}`;
      expect(response.status, where).not.toBe(405);
      expect(response.status, where).not.toBe(501);
      expect(response.body?.error?.message ?? '', where).not.toMatch(/^No route for/);
    }
  });

  it('lists the order fields in the order the serializer writes them', () => {
    const at = new Date('2026-11-23T10:00:00Z');
    const row = {
      id: 'ord_1',
      uuid: '3f1b1a1e-1111-4111-8111-111111111111',
      created_at: at,
      updated_at: at,
      video_duration_tenths: 0,
    } as OrderRow;
    expect(Object.keys(serializeOrder(row, 'https://doorstep.test'))).toEqual(Object.keys(orderJson.shape));
    expect(Object.keys(api.components('schemas').Order!.properties as Json)).toEqual(Object.keys(orderJson.shape));
  });
});
