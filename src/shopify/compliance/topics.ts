import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { formatTimestamp } from '../../orders/serializer.ts';
import { findThanks } from '../../thanks/thanks.ts';
import { newestPlayable } from '../../videos/videos.ts';
import type { OrderService } from '../../orders/service.ts';

/**
 * Shopify's mandatory compliance topics, doing real work (docs/shopify.md):
 * customers/redact erases the customer's personal data and videos from their video orders,
 * shop/redact deletes the shop's data, customers/data_request stores an export the merchant fetches
 * at GET /v1/shopify/data-exports/{id}.
 */
export interface ComplianceDeps {
  db: Db;
  orders: OrderService;
  now: () => Date;
}

/**
 * Stops the order (it must never send to an erased recipient), blanks every personal field, and
 * soft-deletes it (the row stays, without personal data, for billing). What other modules keep
 * about the people (video files, send destinations) goes with the `order.erased` event.
 */
export async function eraseVideoOrder(
  deps: ComplianceDeps,
  _accountId: string,
  orderId: string,
  reason: string,
): Promise<void> {
  try {
    await deps.orders.erasePersonalData(orderId, 'shopify', reason);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

interface CustomerRef {
  id?: string | null | undefined;
  email: string | null;
}

/** The customer's video orders, oldest first: the data export lists them in that order. */
async function customerLinks(db: Db, shop: string, customer: CustomerRef, shopifyOrderIds: string[]) {
  return db
    .selectFrom('shopify_order_links')
    .innerJoin('orders', 'orders.id', 'shopify_order_links.order_id')
    .selectAll('shopify_order_links')
    .where('shopify_order_links.shop', '=', shop)
    .where((eb) =>
      eb.or([
        ...(customer.id ? [eb('shopify_order_links.customer_id', '=', customer.id)] : []),
        ...(customer.email ? [eb('shopify_order_links.customer_email', '=', customer.email)] : []),
        ...(shopifyOrderIds.length > 0 ? [eb('shopify_order_links.shopify_order_id', 'in', shopifyOrderIds)] : []),
        eb.val(false),
      ]),
    )
    .orderBy('orders.seq')
    .execute();
}

export async function redactCustomer(
  deps: ComplianceDeps,
  shop: string,
  customer: CustomerRef,
  ordersToRedact: string[],
): Promise<{ erased: string[] }> {
  const links = await customerLinks(deps.db, shop, customer, ordersToRedact);
  for (const link of links)
    await eraseVideoOrder(deps, link.account_id, link.order_id, 'customer data erased (Shopify customers/redact)');
  const orderIds = [...new Set([...ordersToRedact, ...links.map((l) => l.shopify_order_id)])];
  if (links.length > 0) {
    await deps.db
      .updateTable('shopify_order_links')
      .set({ customer_id: null, customer_email: null })
      .where('shop', '=', shop)
      .where(
        'order_id',
        'in',
        links.map((l) => l.order_id),
      )
      .execute();
  }
  // Stored webhook bodies of those orders hold the same personal data.
  for (const id of orderIds) {
    await deps.db
      .updateTable('webhook_receipts')
      .set({ raw_body: '{"redacted":true}' })
      .where('shop', '=', shop)
      .where('topic', 'not in', ['customers/redact', 'customers/data_request', 'shop/redact'])
      .where((eb) =>
        eb.or(
          ['id', 'order_id'].flatMap((key) =>
            [',', '}'].map((end) => eb('raw_body', 'like', `%"${key}":${id}${end}%`)),
          ),
        ),
      )
      .execute();
  }
  await deps.db
    .deleteFrom('shopify_data_exports')
    .where('shop', '=', shop)
    .where('customer_id', '=', customer.id ?? '')
    .execute();
  return { erased: links.map((l) => l.order_id) };
}

/**
 * Every video order of the shop is erased: those its Shopify orders made, and those without a Shopify
 * order — its test gift (probe finding: it outlived shop/redact, watch page and video included, and a
 * reinstalled shop's guide showed the step done) and any made with the shop's API key. Each shop has
 * its own account (registerShop), so the shop's orders are its account's; the links are read too for
 * a shop whose row is already gone.
 */
export async function redactShop(
  deps: ComplianceDeps,
  shop: string,
  keepWebhookId: string,
): Promise<{ erased: number }> {
  const links = await deps.db.selectFrom('shopify_order_links').selectAll().where('shop', '=', shop).execute();
  const account = await deps.db.selectFrom('shops').select('account_id').where('domain', '=', shop).executeTakeFirst();
  const ofAccount = account
    ? await deps.db.selectFrom('orders').select('id').where('account_id', '=', account.account_id).execute()
    : [];
  const orderIds = new Set([...links.map((link) => link.order_id), ...ofAccount.map((order) => order.id)]);
  for (const orderId of orderIds)
    await eraseVideoOrder(deps, account?.account_id ?? '', orderId, 'shop data erased (Shopify shop/redact)');
  await deps.db.deleteFrom('shopify_order_links').where('shop', '=', shop).execute();
  await deps.db.deleteFrom('shopify_test_gifts').where('shop', '=', shop).execute();
  await deps.db.deleteFrom('shopify_fulfillments').where('shop', '=', shop).execute();
  await deps.db.deleteFrom('shopify_cancelled_orders').where('shop', '=', shop).execute();
  await deps.db.deleteFrom('shopify_refused_lines').where('shop', '=', shop).execute();
  await deps.db.deleteFrom('shopify_data_exports').where('shop', '=', shop).execute();
  await deps.db
    .deleteFrom('webhook_receipts')
    .where('shop', '=', shop)
    .where('webhook_id', '!=', keepWebhookId)
    .execute();
  await deps.db.deleteFrom('shops').where('domain', '=', shop).execute();
  return { erased: orderIds.size };
}

export async function exportCustomerData(
  deps: ComplianceDeps,
  shop: { domain: string; account_id: string },
  customer: CustomerRef & { phone?: string | null },
  ordersRequested: string[],
  dataRequestId: string | null,
): Promise<string> {
  if (dataRequestId) {
    // A redelivered request gets the export already made.
    const existing = await deps.db
      .selectFrom('shopify_data_exports')
      .select('id')
      .where('shop', '=', shop.domain)
      .where('data_request_id', '=', dataRequestId)
      .executeTakeFirst();
    if (existing) return existing.id;
  }
  const links = await customerLinks(deps.db, shop.domain, customer, ordersRequested);
  const orders = [];
  for (const link of links) {
    const order = await deps.db.selectFrom('orders').selectAll().where('id', '=', link.order_id).executeTakeFirst();
    if (!order || order.deleted_at) continue;
    // The people's own words: what the sender typed as the gift's captions, and the recipient's thank-you.
    const [video, thanks] = await Promise.all([newestPlayable(deps.db, order.id), findThanks(deps.db, order.id)]);
    orders.push({
      id: order.id,
      shopify_order_id: link.shopify_order_id,
      shopify_line_item_id: link.line_item_id,
      status: order.status,
      name: order.name,
      email: order.email,
      sender_phone: order.sender_phone,
      recipient_name: order.recipient_name,
      recipient_email: order.recipient_email,
      recipient_phone: order.recipient_phone,
      video_title: order.video_title,
      video_recorded: order.video_processed,
      video_transcript: video?.transcript ?? null,
      thank_you: thanks
        ? { reply: thanks.reply, note: thanks.note, recorded_at: formatTimestamp(thanks.recorded_at) }
        : null,
      price: order.price,
      created_at: formatTimestamp(order.created_at),
      delivered_at: order.delivered_at ? formatTimestamp(order.delivered_at) : null,
      sent_at: order.sent_at ? formatTimestamp(order.sent_at) : null,
    });
  }
  const id = `dex_${randomBytes(10).toString('hex')}`;
  const data = {
    shop: shop.domain,
    customer: { id: customer.id ?? null, email: customer.email, phone: customer.phone ?? null },
    data_request_id: dataRequestId,
    video_orders: orders,
  };
  await deps.db
    .insertInto('shopify_data_exports')
    .values({
      id,
      shop: shop.domain,
      account_id: shop.account_id,
      data_request_id: dataRequestId,
      customer_id: customer.id ?? null,
      data: JSON.stringify(data),
      created_at: deps.now(),
    })
    .execute();
  return id;
}
