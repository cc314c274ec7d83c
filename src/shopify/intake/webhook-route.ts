import type { Middleware } from 'koa';
import { readBodyText } from '../../http/body-reads.ts';
import { HttpError } from '../../http/errors.ts';
import type { ShopifyServices } from '../services.ts';
import { shopDomain } from '../shops.ts';
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
  // The webhook HMAC key is made once, here, not per request (src/shopify/intake/webhook-hmac.ts).
  const verifyWebhook = webhookVerifier(shopify.config.apiSecret);
  return async (ctx, next) => {
    if (ctx.path !== '/shopify/webhooks' || ctx.method !== 'POST') return next();
    return shopify.intakeLoad.track(async () => {
      // A signature that can never match is refused before the body is read (and the connection
      // closed, since its bytes are not): such a body is never buffered.
      const refusal = ctx.get('Content-Length') !== '0' ? webhookSignatureRefusal(ctx.req.headers) : null;
      if (refusal) {
        deps.observeWebhook?.(ctx.get('X-Shopify-Topic').trim().toLowerCase(), 'rejected');
        // 401 whether the signature is missing or wrong: Shopify's app review expects 401 for a webhook
        // that does not verify, and rejects 400 or 403 (docs/shopify-notes.md; merchant probe).
        throw new HttpError(401, 'unauthorized', `Webhook rejected: ${refusal}.`, { Connection: 'close' });
      }
      // Every shop's webhooks come from Shopify's addresses: the fair share is the claimed shop's, and
      // one address may hold at most half of the slots however many shops it claims (body-reads.ts).
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
