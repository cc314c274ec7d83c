import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import { currentAccount } from '../http/basic-auth.ts';
import { readBodyText } from '../http/body-reads.ts';
import { HttpError } from '../http/errors.ts';
import { sendAdminPage } from './admin-page.ts';
import { installShop } from './install.ts';
import { authenticateSessionToken } from './session-auth.ts';
import { getDataExport, listDataExports, type dataExportListJson } from './data-exports.ts';
import type { ShopifyServices } from './services.ts';
import { parseShopDomain, shopDomain } from './shops.ts';
import { sessionTokens } from './tokens.ts';
import { claimedWebhookShop, webhookSignatureRefusal, webhookVerifier } from './webhook-hmac.ts';
import { recordReceipt } from './webhooks.ts';

/** Shopify's largest payloads (orders with hundreds of lines) stay well below this. */
const WEBHOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * POST /shopify/webhooks: verify, store, answer. A plain middleware mounted near the front of the app
 * (src/app.ts, right after the error handler), not a route of the router below: the endpoint needs
 * no session, no body parser and none of the routers in front of the /shopify ones, and under a
 * burst it is the busiest path of the process (docs/scaling.md "Webhook intake"). No global body
 * parser may run before it (the HMAC covers the exact raw bytes).
 */
export function shopifyWebhookIntake(shopify: ShopifyServices): Middleware {
  const { deps } = shopify;
  const now = deps.now ?? (() => new Date());
  // The webhook HMAC key is made once, here, not per request (src/shopify/webhook-hmac.ts).
  const verifyWebhook = webhookVerifier(shopify.config.apiSecret);
  return async (ctx, next) => {
    if (ctx.path !== '/shopify/webhooks' || ctx.method !== 'POST') return next();
    return shopify.intakeLoad.track(async () => {
      // A signature that can never match is refused before the body is read (and the connection
      // closed, since its bytes are not): such a body is never buffered.
      const refusal = ctx.get('Content-Length') !== '0' ? webhookSignatureRefusal(ctx.req.headers) : null;
      if (refusal) {
        deps.observeWebhook?.(ctx.get('X-Shopify-Topic').trim().toLowerCase(), 'rejected');
        const status = refusal === 'missing_hmac' ? 400 : 401;
        throw new HttpError(
          status,
          status === 401 ? 'unauthorized' : 'invalid_request',
          `Webhook rejected: ${refusal}.`,
          { Connection: 'close' },
        );
      }
      // Every shop's webhooks come from Shopify's addresses: the fair share is the claimed shop's.
      const claimed = claimedWebhookShop(ctx.req.headers);
      const rawBody = await readBodyText(ctx, WEBHOOK_BODY_LIMIT_BYTES, 'The webhook body is too large.', {
        ...(claimed ? { client: `shop:${claimed}` } : {}),
      });
      const check = verifyWebhook(rawBody, ctx.req.headers);
      if (!check.valid) {
        deps.observeWebhook?.(ctx.get('X-Shopify-Topic').trim().toLowerCase(), 'rejected');
        // Shopify's app review expects 401 for a bad HMAC; nothing is stored.
        const status = check.reason === 'missing_headers' ? 400 : 401;
        ctx.status = status;
        ctx.body = {
          error: {
            type: status === 401 ? 'unauthorized' : 'invalid_request',
            message: `Webhook rejected: ${check.reason}.`,
          },
        };
        return;
      }
      // Signed, but the shop header is not covered by the signature: only a shop domain Shopify
      // could send is stored (it names the account the webhook acts on, and a host we call).
      const shop = shopDomain.safeParse(check.domain);
      if (!shop.success) {
        deps.observeWebhook?.(ctx.get('X-Shopify-Topic').trim().toLowerCase(), 'rejected');
        throw new HttpError(
          400,
          'invalid_request',
          'Webhook rejected: X-Shopify-Shop-Domain must be a shop domain like my-store.myshopify.com.',
        );
      }
      // The header's own spelling ("fulfillments/create").
      const topic = check.topic.trim().toLowerCase();
      const eventId = ctx.get('X-Shopify-Event-Id').trim();
      const triggeredAt = check.triggeredAt ? new Date(check.triggeredAt) : null;
      const stored = await recordReceipt(deps.db, {
        webhookId: check.webhookId,
        topic,
        eventId: eventId.length > 0 ? eventId.slice(0, 255) : null,
        shop: shop.data,
        apiVersion: check.apiVersion,
        triggeredAt: triggeredAt && !Number.isNaN(triggeredAt.getTime()) ? triggeredAt : null,
        rawBody,
        receivedAt: now(),
      });
      deps.observeWebhook?.(topic, stored ? 'stored' : 'duplicate');
      // The answer waits for the commit only: the job is queued after it, with others (receipt-hand-off.ts).
      if (stored) shopify.receiptHandOff?.add(check.webhookId);
      ctx.status = 200;
      ctx.body = { received: true, duplicate: !stored };
    });
  };
}

/**
 * Public routes under /shopify: OAuth install and the embedded admin (token exchange); the webhook
 * endpoint is `shopifyWebhookIntake` above. Mounted before the /v1 Basic-auth middleware.
 */
export function shopifyRoutes(shopify: ShopifyServices): Router {
  const { library } = shopify;
  const router = new Router({ prefix: '/shopify' });

  // OAuth install: Shopify sends the merchant here; the library answers with the redirect itself.
  router.get('/auth', async (ctx) => {
    const shop = parseShopDomain(ctx.query.shop);
    ctx.respond = false;
    await library.auth.begin({
      shop,
      callbackPath: '/shopify/auth/callback',
      isOnline: false,
      rawRequest: ctx.req,
      rawResponse: ctx.res,
    });
  });

  router.get('/auth/callback', async (ctx) => {
    let result;
    try {
      result = await library.auth.callback<Record<string, string | string[]>>({
        rawRequest: ctx.req,
        rawResponse: ctx.res,
        expiring: true,
      });
    } catch (error) {
      throw new HttpError(
        400,
        'invalid_request',
        `The Shopify OAuth callback is not valid: ${(error as Error).message}`,
      );
    }
    // The Node adapter has already set the headers (clearing the state cookie) on ctx.res; other adapters return them.
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    const { session } = result;
    await installShop(shopify, session.shop, sessionTokens(session));
    ctx.redirect(`https://${session.shop}/admin/apps/${encodeURIComponent(shopify.config.apiKey)}`);
  });

  // The embedded admin, also served at the app's root (app-home.ts), which is where Shopify opens it.
  router.get('/app', (ctx) => serveEmbeddedAdmin(shopify, ctx));

  // The embedded admin's JSON API (/shopify/api/*) lives in ./admin/routes.ts.

  return router;
}

/**
 * Routes for the shop's Doorstep account under /v1 (mounted after the Basic-auth middleware):
 * customer data exports produced by customers/data_request.
 */
export function shopifyAccountRoutes(shopify: ShopifyServices): Router {
  const { db } = shopify.deps;
  const router = new Router({ prefix: '/v1/shopify' });
  router.get('/data-exports', async (ctx) => {
    const rows = await listDataExports(db, currentAccount(ctx).id);
    ctx.body = {
      data: rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    } satisfies z.output<typeof dataExportListJson>;
  });
  router.get('/data-exports/:id', async (ctx) => {
    ctx.body = await getDataExport(db, currentAccount(ctx).id, ctx.params.id!);
  });
  return router;
}

/**
 * The embedded admin page. Shopify loads it with an `id_token` (a session token) in the query; the
 * token says which shop, and installs the shop by token exchange when we hold no working token.
 * The page itself (React + Polaris, admin-page.ts) loads its data from /shopify/api.
 */
export async function serveEmbeddedAdmin(shopify: ShopifyServices, ctx: Context): Promise<void> {
  await authenticateSessionToken(shopify, ctx, String(ctx.query.id_token ?? ''));
  sendAdminPage(ctx, { apiKey: shopify.config.apiKey, development: shopify.config.development });
}
