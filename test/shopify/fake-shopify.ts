import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Shopify for the calls the app makes: POST /admin/oauth/access_token (authorization code,
 * token exchange and refresh grants — expiring offline tokens with rotating refresh tokens) and the
 * Admin GraphQL API. The library's `https://{shop}` calls reach it through routeShopifyRequestsTo.
 */
export interface FakeShopify {
  baseUrl: string;
  grants: Array<{ shop: string; grant_type: string }>;
  /** Seconds until the next issued access token expires. */
  accessTokenLifetime: number;
  /**
   * Holds the next refresh-grant answers in flight until `release` (so a test knows a refresh is
   * under way while it starts a competitor); `arrived` resolves when the first held request comes in.
   */
  holdRefreshes(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startFakeShopify(apiKey: string, apiSecret: string): Promise<FakeShopify> {
  const refreshTokens = new Map<string, string>(); // refresh token → shop (rotating: used once)
  const accessTokens = new Set<string>();
  let held: Promise<void> | null = null;
  let arrived: (() => void) | null = null;
  const fake: FakeShopify = {
    baseUrl: '',
    grants: [],
    accessTokenLifetime: 3600,
    holdRefreshes() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      return {
        arrived: arrival,
        release: () => {
          held = null;
          release();
        },
      };
    },
    close: async () => {},
  };

  const issue = (shop: string) => {
    const access = `shpat_${randomBytes(8).toString('hex')}`;
    const refresh = `shprt_${randomBytes(8).toString('hex')}`;
    accessTokens.add(access);
    refreshTokens.set(refresh, shop);
    return {
      access_token: access,
      scope: 'read_orders,read_fulfillments',
      expires_in: fake.accessTokenLifetime,
      refresh_token: refresh,
      refresh_token_expires_in: 7_776_000,
    };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const shop = String(req.headers['x-fake-shopify-shop'] ?? '');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>) : {};
      if (req.method === 'POST' && req.url === '/admin/oauth/access_token') {
        if (body.client_id !== apiKey || body.client_secret !== apiSecret)
          return send(401, { error: 'invalid_client' });
        const grant = body.grant_type ?? 'authorization_code';
        fake.grants.push({ shop, grant_type: grant });
        if (grant === 'refresh_token') {
          // Rotating refresh tokens: each works once; a second use (a refresh race) is refused.
          if (refreshTokens.get(body.refresh_token ?? '') !== shop) return send(400, { error: 'invalid_grant' });
          refreshTokens.delete(body.refresh_token!);
          arrived?.();
          if (held) return void held.then(() => send(200, issue(shop)));
          return send(200, issue(shop));
        }
        if (grant === 'urn:ietf:params:oauth:grant-type:token-exchange' || body.code) return send(200, issue(shop));
        return send(400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'POST' && /^\/admin\/api\/[\w-]+\/graphql\.json$/.test(req.url ?? '')) {
        if (!accessTokens.has(String(req.headers['x-shopify-access-token'] ?? '')))
          return send(401, { errors: '[API] Invalid API key or access token' });
        return send(200, { data: { shop: { name: `Fake ${shop.split('.')[0]}` } } });
      }
      send(404, { errors: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
