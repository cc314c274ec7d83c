import type { Db } from '../../db/database.ts';

/**
 * Shopify's HMAC covers the body, not the `X-Shopify-Shop-Domain` header: a body signed for one
 * shop can be replayed under another shop's header. So the header is believed only when every shop
 * identity the payload carries agrees with it. Pure: what the payload itself says.
 *
 * - `shop_domain` (compliance topics) must be the header's shop.
 * - `order_status_url` (orders) names the shop's host; on a `*.myshopify.com` host it must be the
 *   header's shop (a custom storefront domain says nothing either way).
 *
 * Returns why the payload belongs to another shop, or null.
 */
export function payloadNamesAnotherShop(headerShop: string, body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const payload = body as Record<string, unknown>;
  const shop = headerShop.toLowerCase();
  if ('shop_domain' in payload) {
    const named = typeof payload.shop_domain === 'string' ? payload.shop_domain.trim().toLowerCase() : '';
    if (named !== shop) return `the payload's shop_domain is not the ${shop} of the X-Shopify-Shop-Domain header`;
  }
  if (typeof payload.order_status_url === 'string') {
    const host = hostOf(payload.order_status_url);
    if (host?.endsWith('.myshopify.com') && host !== shop)
      return `the payload's order_status_url is on ${host}, not the ${shop} of the X-Shopify-Shop-Domain header`;
  }
  return null;
}

/** The payload says itself that it is the header shop's: its `order_status_url` is on the shop's own myshopify host. */
export function payloadIdentifiesShop(headerShop: string, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const url = (body as Record<string, unknown>).order_status_url;
  return typeof url === 'string' && hostOf(url) === headerShop.toLowerCase();
}

/**
 * Whether an order payload must be confirmed through the header shop's Admin API before it may bind
 * its Shopify order id to that shop. Pure; the look-up itself is the caller's (webhooks.ts).
 *
 * A first sight binds: the links made now decide which shop later webhooks of the order belong to
 * (`shopOfLinkedOrder`). So a payload that would make the order's first links — it has video lines,
 * and the order has no links in this shop yet — must show it is this shop's, by itself (its
 * myshopify `order_status_url`) or by the shop's Admin API knowing the order. Otherwise a genuinely
 * signed body with no `order_status_url`, or one on a custom domain, replayed under another shop's
 * header, would take the order and lock the real shop out. Links made earlier in this shop were
 * made through this very check, so later webhooks of the order cost no call; nor do orders without
 * video lines, which make no links.
 */
export function bindingNeedsShopLookUp(input: {
  headerShop: string;
  body: unknown;
  links: readonly LinkOfShopifyOrder[];
  videoLines: number;
}): boolean {
  if (input.videoLines === 0) return false;
  const shop = input.headerShop.toLowerCase();
  if (input.links.some((link) => link.shop === shop)) return false;
  return !payloadIdentifiesShop(shop, input.body);
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** The Shopify order a payload is about: `id` of an order topic, `order_id` of a fulfillment topic. */
export function shopifyOrderIdOf(topic: string, body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const payload = body as Record<string, unknown>;
  const id = topic.startsWith('orders/') ? payload.id : topic.startsWith('fulfillment') ? payload.order_id : null;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : null;
}

/** A Shopify order's links, in every shop: what the trust check and a new order's lines both need. */
export interface LinkOfShopifyOrder {
  shop: string;
  line_item_id: string;
  order_id: string;
  shopify_order_name: string | null;
  gift_line_item_ids: string[] | null;
  gift_quantities: Record<string, number> | null;
  gift_updated_at: Date | null;
  notice: string | null;
}

/**
 * Every link of one Shopify order id, whatever the shop — one read serving two purposes: Shopify
 * order ids are global, so a link in another shop refuses the payload (`shopOfLinkedOrder`), and
 * the header shop's own links tell orders/create which line items already made their order.
 * Bounded: links are made only through a payload that passed this very check, so they are one
 * shop's, at most SHOPIFY_MAX_VIDEO_LINES_PER_ORDER of them.
 */
export function linksOfShopifyOrderQuery(db: Db, shopifyOrderId: string) {
  return db
    .selectFrom('shopify_order_links')
    .select([
      'shop',
      'line_item_id',
      'order_id',
      'shopify_order_name',
      'gift_line_item_ids',
      'gift_quantities',
      'gift_updated_at',
      'notice',
    ])
    .where('shopify_order_id', '=', shopifyOrderId);
}

/** The other shop a Shopify order is already linked to, or null. */
export function shopOfLinkedOrder(headerShop: string, links: readonly LinkOfShopifyOrder[]): string | null {
  const shop = headerShop.toLowerCase();
  return links.find((link) => link.shop !== shop)?.shop ?? null;
}
