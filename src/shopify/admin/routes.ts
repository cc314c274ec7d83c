import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { findAccount, rotateApiKey } from '../../accounts/accounts.ts';
import { removeAccountLogo, saveAccountLogo } from '../../accounts/logo.ts';
import { readLogoBody } from '../../accounts/logo-routes.ts';
import { ConflictError } from '../../errors.ts';
import { readJsonObject } from '../../http/json-body.ts';
import type { OrderRow } from '../../orders/serializer.ts';
import { orderUpdateSchema } from '../../orders/request-schemas.ts';
import type { OrderService } from '../../orders/service.ts';
import { sendMethodReaching } from '../../orders/recipient.ts';
import { parseBody, parseListQuery } from '../../validation.ts';
import type { EventSource } from '../../vocabulary.ts';
import { getDataExport, listDataExports } from '../compliance/data-exports.ts';
import type { ShopifyServices } from '../services.ts';
import { currentShop, sessionTokenAuth } from '../auth/session-auth.ts';
import { shopSettingsSchema, updateShopSettings, type ShopRow } from '../shops.ts';
import { formatTimestamp } from '../../orders/serializer.ts';
import type {
  CredentialsJson,
  DataExportList,
  HomeJson,
  OrderDetail,
  OrderList,
  RotatedCredentials,
  SettingsJson,
  SetupJson,
} from './contract.ts';
import { homeJson } from './home.ts';
import { sendTestGift, setupGuide } from './setup/setup.ts';
import { createVideoProduct } from './setup/video-product.ts';
import type { VideoService } from '../../videos/service.ts';
import { actionRefusals, orderDetailJson, orderSummaryJson, type AdminAction } from './order-detail.ts';
import { listOrders, orderContexts } from './order-reads.ts';
import { adminSettingsJson } from './settings.ts';
import { shopTimeZone } from './shop-time-zone.ts';
import { ORDER_STAGES } from './stage.ts';

export interface AdminApiDeps {
  shopify: ShopifyServices;
  /** The same service the /v1 API changes orders through. */
  orders: OrderService;
  /** What POST /v1/orders/{id}/resend calls (notifications' dispatcher). */
  resend: (accountId: string, orderId: string, source: EventSource) => Promise<OrderRow>;
  publicUrl: string;
  now: () => Date;
  /** The setup guide's reads and its test gift (src/shopify/admin/setup/). */
  videos: VideoService;
  /** Billing's answer: has the shop approved its plan? */
  planActive: (domain: string) => Promise<boolean>;
}

const listQuerySchema = z.strictObject({
  stage: z.enum(ORDER_STAGES, { error: `must be one of ${ORDER_STAGES.join(', ')}` }).optional(),
  q: z.string().max(200, 'must be at most 200 characters').optional(),
  cursor: z.string().min(1).optional(),
  limit: z.coerce
    .number({ error: 'must be a number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be from 1 to 100')
    .max(100, 'must be from 1 to 100')
    .default(25),
});

const recipientSchema = orderUpdateSchema
  .pick({ recipient_name: true, recipient_email: true, recipient_phone: true })
  .refine((value) => Object.keys(value).length > 0, {
    message: 'give recipient_name, recipient_email or recipient_phone',
    path: ['_'],
  });

/** Why the merchant cancelled, on the order's timeline. */
const ADMIN_CANCEL_REASON = 'cancelled by the merchant in the Doorstep admin';

/**
 * The embedded admin's JSON API under /shopify/api (docs/shopify.md, "The embedded admin's API"):
 * every route needs a Shopify session token and sees only its shop's account. Every change goes
 * through the same service function as the /v1 API, with the source `admin`.
 */
export function adminApiRoutes(deps: AdminApiDeps): Router {
  const { shopify, orders, publicUrl, now } = deps;
  const db = shopify.deps.db;
  const router = new Router({ prefix: '/shopify/api' });
  router.use(sessionTokenAuth(shopify));

  /** The shop's time zone rides with every answer that holds dates: the admin shows them in it. */
  const timeZoneOf = async (shop: ShopRow) => ({ time_zone: await shopTimeZone(shopify, shop) });

  const settingsOf = async (shop: ShopRow) => ({ ...(await adminSettingsJson(db, shop)), ...(await timeZoneOf(shop)) });

  const detail = async (shop: ShopRow, orderId: string) => {
    const { order, timeline } = await orders.getWithTimeline(shop.account_id, orderId);
    const [context] = await orderContexts(db, [order]);
    const zone = await timeZoneOf(shop);
    return { ...orderDetailJson(context!, timeline, publicUrl, now(), zone.time_zone), ...zone };
  };

  /** 404 for another shop's order; 409 in words when the action does not apply. */
  const refuseUnlessApplies = async (accountId: string, orderId: string, action: AdminAction) => {
    const order = await orders.get(accountId, orderId);
    const [context] = await orderContexts(db, [order]);
    const refusal = actionRefusals(order, context!.sends, now())[action];
    if (refusal) throw new ConflictError(refusal);
    return order;
  };

  router.get('/home', async (ctx) => {
    ctx.body = {
      ...(await homeJson(db, currentShop(ctx), now())),
      ...(await timeZoneOf(currentShop(ctx))),
    } satisfies HomeJson;
  });

  const setup = { shopify, orders, videos: deps.videos, planActive: deps.planActive };

  // The setup guide on Home: four steps, each ticked from the shop's real state.
  router.get('/setup', async (ctx) => {
    ctx.body = (await setupGuide(setup, currentShop(ctx))) satisfies SetupJson;
  });

  // Setup step 2's button: the "Video message" add-on made in the shop, published, and chosen.
  router.post('/video-product', async (ctx) => {
    const product = await createVideoProduct(shopify, currentShop(ctx), await readJsonObject(ctx));
    ctx.status = 201;
    ctx.body = { product_id: product.productId, title: product.title, price: product.price };
  });

  // "Send a test gift to yourself": a sample video message to the store's own e-mail, never billed.
  router.post('/test-gift', async (ctx) => {
    const shop = currentShop(ctx);
    const account = await findAccount(db, shop.account_id);
    const order = await sendTestGift(setup, shop, account?.name ?? shop.domain);
    ctx.status = 201;
    ctx.body = {
      status: 'sending',
      order_id: order.id,
      message: `A test gift is on its way to ${order.recipient_email ?? 'your store’s e-mail address'}: a sample video, sent as soon as it is ready.`,
    };
  });

  router.get('/orders', async (ctx) => {
    const page = await listOrders(db, currentShop(ctx).account_id, parseListQuery(listQuerySchema, ctx.query));
    ctx.body = {
      data: page.orders.map(orderSummaryJson),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
      ...(await timeZoneOf(currentShop(ctx))),
    } satisfies OrderList;
  });

  router.get('/orders/:orderId', async (ctx) => {
    ctx.body = (await detail(currentShop(ctx), orderId(ctx))) satisfies OrderDetail;
  });

  router.post('/orders/:orderId/mark-delivered', async (ctx) => {
    const accountId = currentShop(ctx).account_id;
    await refuseUnlessApplies(accountId, orderId(ctx), 'mark_delivered');
    await orders.update(accountId, orderId(ctx), { delivered: true }, 'admin');
    ctx.body = (await detail(currentShop(ctx), orderId(ctx))) satisfies OrderDetail;
  });

  router.post('/orders/:orderId/resend', async (ctx) => {
    const accountId = currentShop(ctx).account_id;
    await refuseUnlessApplies(accountId, orderId(ctx), 'resend');
    await deps.resend(accountId, orderId(ctx), 'admin');
    ctx.body = (await detail(currentShop(ctx), orderId(ctx))) satisfies OrderDetail;
  });

  router.put('/orders/:orderId/recipient', async (ctx) => {
    const accountId = currentShop(ctx).account_id;
    const recipient = parseBody(recipientSchema, await readJsonObject(ctx), 'recipient');
    const order = await refuseUnlessApplies(accountId, orderId(ctx), 'edit_recipient');
    const email = recipient.recipient_email === undefined ? order.recipient_email : recipient.recipient_email;
    const phone = recipient.recipient_phone === undefined ? order.recipient_phone : recipient.recipient_phone;
    // An order that had no way to reach anyone is sent the way it can now be (both → the shop's
    // default, as the Shopify mapping does); otherwise the send method the order has stays.
    const reachableBefore = order.recipient_email !== null || order.recipient_phone !== null;
    const sendMethod = reachableBefore
      ? null
      : sendMethodReaching({ email: Boolean(email), phone: Boolean(phone) }, currentShop(ctx).default_send_method);
    await orders.update(
      accountId,
      order.id,
      { ...recipient, ...(sendMethod ? { send_method: sendMethod } : {}) },
      'admin',
    );
    ctx.body = (await detail(currentShop(ctx), order.id)) satisfies OrderDetail;
  });

  router.post('/orders/:orderId/cancel', async (ctx) => {
    const accountId = currentShop(ctx).account_id;
    const order = await refuseUnlessApplies(accountId, orderId(ctx), 'cancel');
    await orders.cancel(order.id, 'admin', ADMIN_CANCEL_REASON);
    ctx.body = (await detail(currentShop(ctx), order.id)) satisfies OrderDetail;
  });

  router.get('/settings', async (ctx) => {
    ctx.body = (await settingsOf(currentShop(ctx))) satisfies SettingsJson;
  });

  router.put('/settings', async (ctx) => {
    const update = parseBody(shopSettingsSchema, await readJsonObject(ctx), 'settings change');
    const shop = await updateShopSettings(db, currentShop(ctx).domain, update, now());
    ctx.body = (await settingsOf(shop)) satisfies SettingsJson;
  });

  // The store's logo, uploaded (an image body) or removed; both answer the settings.
  router.put('/settings/logo', async (ctx) => {
    await saveAccountLogo(db, currentShop(ctx).account_id, await readLogoBody(ctx), publicUrl, now());
    ctx.body = (await settingsOf(currentShop(ctx))) satisfies SettingsJson;
  });
  router.delete('/settings/logo', async (ctx) => {
    await removeAccountLogo(db, currentShop(ctx).account_id, publicUrl, now());
    ctx.body = (await settingsOf(currentShop(ctx))) satisfies SettingsJson;
  });

  router.get('/credentials', async (ctx) => {
    const account = await findAccount(db, currentShop(ctx).account_id);
    if (!account) throw new Error('the shop names an account that does not exist');
    ctx.body = { app_id: account.appId, api_key_hint: account.apiKeyHint } satisfies CredentialsJson;
  });

  router.post('/credentials/rotate', async (ctx) => {
    const rotated = await rotateApiKey(db, currentShop(ctx).account_id);
    // Shown once: nothing may keep it (no cache of this response anywhere).
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { app_id: rotated.appId, api_key: rotated.apiKey } satisfies RotatedCredentials;
  });

  router.get('/data-exports', async (ctx) => {
    const rows = await listDataExports(db, currentShop(ctx).account_id);
    ctx.body = {
      ...(await timeZoneOf(currentShop(ctx))),
      data: rows.map((row) => ({
        id: row.id,
        data_request_id: row.data_request_id,
        customer_id: row.customer_id,
        created_at: formatTimestamp(row.created_at),
      })),
    } satisfies DataExportList;
  });

  router.get('/data-exports/:exportId', async (ctx) => {
    const id = ctx.params.exportId!;
    const data = await getDataExport(db, currentShop(ctx).account_id, id);
    ctx.set(
      'Content-Disposition',
      `attachment; filename="doorstep-data-export-${id.replace(/[^A-Za-z0-9_-]/g, '')}.json"`,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = data;
  });

  return router;
}

function orderId(ctx: Context): string {
  return ctx.params.orderId!;
}
