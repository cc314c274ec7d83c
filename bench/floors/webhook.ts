/**
 * Webhook floor: what Shopify's webhook contract demands at least — verify the HMAC of the raw body
 * with node:crypto, store the receipt, answer 200. The receipt is stored already `processed` under
 * its own shop so that the service's reconciler, which re-hands `received` receipts, never picks
 * these up (same single INSERT, no processing cost added to the runs that follow).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Koa from 'koa';
import { floorPool, rawBody, serveFloor } from './serve.ts';

const secret = process.env.SHOPIFY_API_SECRET;
if (!secret) throw new Error('the webhook floor needs SHOPIFY_API_SECRET');
const key = Buffer.from(secret);
const pool = floorPool();
const app = new Koa();

const FLOOR_SHOP = 'webhook-floor.myshopify.com';

app.use(async (ctx) => {
  if (ctx.method !== 'POST' || ctx.path !== '/shopify/webhooks') return void (ctx.status = 404);
  const body = await rawBody(ctx.req);
  const given = Buffer.from(ctx.get('X-Shopify-Hmac-Sha256'), 'base64');
  const expected = createHmac('sha256', key).update(body).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void (ctx.status = 401);
  await pool.query(
    `insert into webhook_receipts (webhook_id, topic, shop, api_version, raw_body, status, received_at, processed_at)
     values ($1, $2, $3, $4, $5, 'processed', now(), now()) on conflict (webhook_id) do nothing`,
    [
      ctx.get('X-Shopify-Webhook-Id'),
      ctx.get('X-Shopify-Topic'),
      FLOOR_SHOP,
      ctx.get('X-Shopify-API-Version'),
      body.toString(),
    ],
  );
  ctx.status = 200;
});
serveFloor(app, 'webhook');
