import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { validateTrackingNumber } from '../../carriers/tracking-number.ts';

/**
 * Webhook payloads in Shopify's documented REST shapes (trimmed to realistic essentials), and their
 * signing. Used by `npm run cli -- shopify simulate` and by the tests' fake Shopify.
 */
export function signWebhook(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('base64');
}

export interface SignedWebhook {
  headers: Record<string, string>;
  body: string;
  webhookId: string;
}

export function signedWebhook(
  secret: string,
  shop: string,
  topic: string,
  payload: unknown,
  options: { webhookId?: string; eventId?: string; apiVersion?: string; rawBody?: string } = {},
): SignedWebhook {
  const body = options.rawBody ?? JSON.stringify(payload);
  const webhookId = options.webhookId ?? randomUUID();
  return {
    body,
    webhookId,
    headers: {
      'Content-Type': 'application/json',
      'X-Shopify-Topic': topic,
      'X-Shopify-Hmac-Sha256': signWebhook(secret, body),
      'X-Shopify-Shop-Domain': shop,
      'X-Shopify-API-Version': options.apiVersion ?? '2026-07',
      'X-Shopify-Webhook-Id': webhookId,
      // One per event; a retry of the same delivery keeps both ids.
      'X-Shopify-Event-Id': options.eventId ?? randomUUID(),
      'X-Shopify-Triggered-At': new Date().toISOString(),
    },
  };
}

/** A fresh 64-bit-looking Shopify id (kept below 2^53 so the JS literal is exact; the app stores text). */
export function fakeShopifyId(): number {
  return 5_000_000_000_000 + randomInt(0, 2 ** 40);
}

export interface GiftLine {
  id: number;
  recipientName?: string;
  recipientEmail?: string;
  recipientPhone?: string;
  sendTrigger?: string;
  price?: string;
  quantity?: number;
  /** What is left after order edits (`current_quantity`); 0 = removed by an edit. Default: `quantity`. */
  currentQuantity?: number;
  marker?: boolean;
  productId?: number;
  variantId?: number;
  /** False for a video message sold as its own add-on product (nothing to ship). Default true. */
  requiresShipping?: boolean;
  /** `_gift_key`, as the storefront block sets it on a video add-on and on its gift line. */
  giftKey?: string;
  title?: string;
}

export function orderPayload(options: {
  id: number;
  lines: GiftLine[];
  email?: string;
  customerId?: number;
  cancelledAt?: string | null;
  updatedAt?: string;
  /** Cart attributes, as themes without app blocks leave them. */
  noteAttributes?: Array<{ name: string; value: string }>;
  /** The customer's order status page, as Shopify sends it (on the shop's myshopify host it names the shop). */
  orderStatusUrl?: string;
}) {
  return {
    id: options.id,
    admin_graphql_api_id: `gid://shopify/Order/${options.id}`,
    name: `#${1000 + (options.id % 1000)}`,
    email: options.email ?? 'ann.sender@example.com',
    contact_email: options.email ?? 'ann.sender@example.com',
    currency: 'USD',
    created_at: '2026-12-01T10:00:00-05:00',
    updated_at: options.updatedAt ?? '2026-12-01T10:00:00-05:00',
    cancelled_at: options.cancelledAt ?? null,
    financial_status: 'paid',
    total_price: '54.00',
    customer: {
      id: options.customerId ?? 7_000_000_001,
      email: options.email ?? 'ann.sender@example.com',
      first_name: 'Ann',
      last_name: 'Sender',
      phone: null,
    },
    billing_address: { name: 'Ann Sender', first_name: 'Ann', last_name: 'Sender', phone: null },
    shipping_address: { name: 'Bob Recipient', first_name: 'Bob', last_name: 'Recipient', phone: '+14155550100' },
    line_items: options.lines.map((line) => ({
      id: line.id,
      admin_graphql_api_id: `gid://shopify/LineItem/${line.id}`,
      product_id: line.productId ?? 8_000_000_001,
      variant_id: line.variantId ?? 9_000_000_001,
      title: line.title ?? (line.marker === false ? 'Scented candle' : 'Video gift message'),
      quantity: line.quantity ?? 1,
      current_quantity: line.currentQuantity ?? line.quantity ?? 1,
      price: line.price ?? '12.00',
      total_discount: '0.00',
      discount_allocations: [],
      requires_shipping: line.requiresShipping ?? true,
      properties:
        line.marker === false
          ? line.giftKey
            ? [{ name: '_gift_key', value: line.giftKey }]
            : []
          : [
              ...(line.giftKey ? [{ name: '_gift_key', value: line.giftKey }] : []),
              { name: '_video_message', value: 'true' },
              ...(line.recipientName ? [{ name: 'Recipient name', value: line.recipientName }] : []),
              ...(line.recipientEmail ? [{ name: 'Recipient email', value: line.recipientEmail }] : []),
              ...(line.recipientPhone ? [{ name: 'Recipient phone', value: line.recipientPhone }] : []),
              ...(line.sendTrigger ? [{ name: 'Send trigger', value: line.sendTrigger }] : []),
            ],
    })),
    note_attributes: options.noteAttributes ?? [],
    fulfillments: [],
    ...(options.orderStatusUrl ? { order_status_url: options.orderStatusUrl } : {}),
  };
}

export function fulfillmentPayload(options: {
  id: number;
  orderId: number;
  lineItemIds: number[];
  trackingCompany?: string | null;
  trackingNumber?: string | null;
  shipmentStatus?: string | null;
  status?: string;
  createdAt?: string;
  updatedAt: string;
}) {
  const number = options.trackingNumber === undefined ? null : options.trackingNumber;
  return {
    id: options.id,
    admin_graphql_api_id: `gid://shopify/Fulfillment/${options.id}`,
    order_id: options.orderId,
    name: `#1001.${options.id % 10}`,
    status: options.status ?? 'success',
    service: 'manual',
    tracking_company: options.trackingCompany ?? null,
    tracking_number: number,
    tracking_numbers: number ? [number] : [],
    tracking_url: null,
    tracking_urls: [],
    shipment_status: options.shipmentStatus ?? null,
    created_at: options.createdAt ?? '2026-12-02T09:00:00-05:00',
    updated_at: options.updatedAt,
    line_items: options.lineItemIds.map((id) => ({
      id,
      admin_graphql_api_id: `gid://shopify/LineItem/${id}`,
      quantity: 1,
    })),
  };
}

export function fulfillmentEventPayload(options: {
  id: number;
  fulfillmentId: number;
  orderId: number;
  status: string;
  happenedAt: string;
  /** Shopify's delivery estimate from its carrier feed; null (the default) when it gives none. */
  estimatedDeliveryAt?: string | null;
}) {
  return {
    id: options.id,
    fulfillment_id: options.fulfillmentId,
    order_id: options.orderId,
    status: options.status,
    message: null,
    happened_at: options.happenedAt,
    created_at: options.happenedAt,
    estimated_delivery_at: options.estimatedDeliveryAt ?? null,
  };
}

/** A UPS number with a correct check digit (1Z + 15 random characters + check). */
export function randomUpsTrackingNumber(): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPRSTUVWXYZ';
  let body = '';
  for (let i = 0; i < 15; i++) body += alphabet[randomInt(0, alphabet.length)];
  for (let check = 0; check <= 9; check++) {
    const candidate = `1Z${body}${check}`;
    if (validateTrackingNumber('ups', candidate).valid) return candidate;
  }
  return `1Z${body}0`;
}
