import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookVerifier } from '../../src/shopify/intake/webhook-hmac.ts';

/**
 * Our webhook check against `@shopify/shopify-api`'s `webhooks.validate` on the same requests: a
 * real HTTP server hands each request to both and answers both verdicts. They must agree on every
 * input — valid, wrong secret, tampered body, missing headers, signatures of the wrong length or
 * spelled differently.
 */

const SECRET = 'shpss_test_secret_for_hmac_comparison';
const library = shopifyApi({
  apiKey: 'test-api-key',
  apiSecretKey: SECRET,
  scopes: [],
  hostName: 'doorstep.test',
  apiVersion: ApiVersion.July26,
  isEmbeddedApp: true,
  logger: { level: LogSeverity.Error, log: async () => {} },
});
const verify = webhookVerifier(SECRET);

interface Verdicts {
  library: Record<string, unknown>;
  ours: Record<string, unknown>;
}

let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      void library.webhooks.validate({ rawBody, rawRequest: req, rawResponse: res }).then((fromLibrary) => {
        const verdicts: Verdicts = { library: comparable(fromLibrary), ours: comparable(verify(rawBody, req.headers)) };
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(verdicts));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What both answers carry, in one spelling (the library upper-cases the topic for its registry). */
function comparable(check: object): Record<string, unknown> {
  const c = check as Record<string, unknown>;
  if (c.valid !== true) return { valid: false, reason: c.reason, missingHeaders: c.missingHeaders };
  return {
    valid: true,
    webhookType: c.webhookType,
    topic: String(c.topic).toUpperCase().replace(/\/|\./g, '_'),
    domain: c.domain,
    apiVersion: c.apiVersion,
    webhookId: c.webhookId,
    triggeredAt: c.triggeredAt,
  };
}

const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body, 'utf8').digest('base64');

function webhookHeaders(body: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Shopify-Topic': 'orders/create',
    'X-Shopify-Hmac-Sha256': sign(body),
    'X-Shopify-Shop-Domain': 'gift-shop.myshopify.com',
    'X-Shopify-API-Version': '2026-07',
    'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'X-Shopify-Triggered-At': '2026-11-23T12:00:00.000Z',
  };
}

async function verdicts(body: string, headers: Record<string, string>): Promise<Verdicts> {
  const response = await fetch(`${baseUrl}/shopify/webhooks`, { method: 'POST', body, headers });
  return (await response.json()) as Verdicts;
}

const BODY = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', note: 'Für dich ✨' });

/** Each case: the body sent and the headers, from a correctly signed webhook. */
const cases: Record<string, () => { body: string; headers: Record<string, string> }> = {
  'a correctly signed webhook': () => ({ body: BODY, headers: webhookHeaders(BODY) }),
  'a signature made with another secret': () => ({
    body: BODY,
    headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': sign(BODY, 'another secret') },
  }),
  'a body changed after signing': () => ({ body: BODY.replace('jon@', 'eve@'), headers: webhookHeaders(BODY) }),
  'an empty body': () => ({ body: '', headers: webhookHeaders('') }),
  'no signature header': () => {
    const { 'X-Shopify-Hmac-Sha256': _omitted, ...headers } = webhookHeaders(BODY);
    return { body: BODY, headers };
  },
  'an empty signature header': () => ({
    body: BODY,
    headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': '' },
  }),
  'no topic and no webhook id': () => {
    const { 'X-Shopify-Topic': _topic, 'X-Shopify-Webhook-Id': _id, ...headers } = webhookHeaders(BODY);
    return { body: BODY, headers };
  },
  'no shop domain and no API version': () => {
    const { 'X-Shopify-Shop-Domain': _domain, 'X-Shopify-API-Version': _version, ...headers } = webhookHeaders(BODY);
    return { body: BODY, headers };
  },
  'no triggered-at (optional)': () => {
    const { 'X-Shopify-Triggered-At': _omitted, ...headers } = webhookHeaders(BODY);
    return { body: BODY, headers };
  },
  'base64 of 16 bytes': () => ({
    body: BODY,
    headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': randomBytes(16).toString('base64') },
  }),
  'base64 of 33 bytes starting with the right 32': () => {
    const right = Buffer.from(sign(BODY), 'base64');
    return {
      body: BODY,
      headers: {
        ...webhookHeaders(BODY),
        'X-Shopify-Hmac-Sha256': Buffer.concat([right, Buffer.from([0])]).toString('base64'),
      },
    };
  },
  'the right signature without its padding': () => ({
    body: BODY,
    headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': sign(BODY).replace(/=+$/, '') },
  }),
  'the right signature with stray characters': () => ({
    body: BODY,
    headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': `${sign(BODY).slice(0, 10)}!${sign(BODY).slice(10)}` },
  }),
  'the right signature in base64url': () => {
    // A body whose signature has a + or /, so the base64url spelling differs.
    let body = BODY;
    for (let i = 0; !/[+/]/.test(sign(body)); i++) body = JSON.stringify({ i });
    return {
      body,
      headers: {
        ...webhookHeaders(body),
        'X-Shopify-Hmac-Sha256': Buffer.from(sign(body), 'base64').toString('base64url'),
      },
    };
  },
  'not base64 at all': () => ({ body: BODY, headers: { ...webhookHeaders(BODY), 'X-Shopify-Hmac-Sha256': '%%%%' } }),
  'a Shopify Events delivery (shopify-* headers)': () => ({
    body: BODY,
    headers: {
      'Content-Type': 'application/json',
      'shopify-topic': 'orders/create',
      'shopify-hmac-sha256': sign(BODY),
      'shopify-shop-domain': 'gift-shop.myshopify.com',
      'shopify-api-version': '2026-07',
      'shopify-webhook-id': 'evt-1',
    },
  }),
};

describe('the webhook check agrees with @shopify/shopify-api', () => {
  it.each(Object.keys(cases))('on %s', async (name) => {
    const { body, headers } = cases[name]!();
    const answer = await verdicts(body, headers);
    expect(answer.ours).toEqual(answer.library);
  });

  it('accepts a correctly signed webhook and rejects a tampered one (the comparison is not vacuous)', async () => {
    expect((await verdicts(BODY, webhookHeaders(BODY))).ours).toMatchObject({
      valid: true,
      topic: 'ORDERS_CREATE',
      webhookId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    });
    expect((await verdicts(`${BODY} `, webhookHeaders(BODY))).ours).toEqual({
      valid: false,
      reason: 'invalid_hmac',
    });
  });
});
