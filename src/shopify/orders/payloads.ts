import { z } from 'zod';

/**
 * The parts of Shopify's webhook payloads we read (REST shapes, docs/shopify-notes.md). Parsed
 * with `parseShopifyJson` first, so ids arrive as strings; numbers are still accepted for safety.
 * Objects are not strict: Shopify adds fields without notice.
 */
export const shopifyId = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(String);

const nullableText = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
/** Shopify money is a decimal string ("10.00"); a number is tolerated. */
export const money = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal amount'));

/**
 * A property's value as text. Themes and apps put lists (`["a","b"]`, an upload app's files) and
 * objects there too: one such property must not cost the order its video line (a Shopify probe saw
 * the whole order refused), so they are read as text, and only our own property names are used.
 */
const propertyValue = z.unknown().transform((v): string => {
  if (v == null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  return JSON.stringify(v);
});

export const lineItemProperty = z.object({
  name: z.string(),
  value: propertyValue,
});

/** Shopify's `*_set` of an amount: here its shop money, the currency prices are kept in. */
const moneySet = z.object({ shop_money: z.object({ amount: money.nullish() }).nullish() }).nullish();

export const shopifyLineItem = z.object({
  id: shopifyId,
  product_id: shopifyId.nullish().transform((v) => v ?? null),
  variant_id: shopifyId.nullish().transform((v) => v ?? null),
  title: z.string().nullish(),
  // Null where a payload leaves them out (a probe's POS-like bodies): one unit, no price.
  quantity: z
    .number()
    .int()
    .nonnegative()
    .nullish()
    .transform((v) => v ?? 1),
  price: money.nullish().transform((v) => v ?? '0'),
  total_discount: money.nullish(),
  /** `amount`, or the shop's money of `amount_set` where only that is given; neither: no discount known. */
  discount_allocations: z
    .array(
      z
        .object({
          amount: money.nullish(),
          amount_set: moneySet,
        })
        .transform((allocation) => ({ amount: allocation.amount ?? allocation.amount_set?.shop_money?.amount ?? '0' })),
    )
    .nullish(),
  properties: z
    .array(lineItemProperty)
    .nullish()
    .transform((v) => v ?? []),
  /** False for a digital / service line (a video message add-on); absent in old payloads = shipped. */
  requires_shipping: z
    .boolean()
    .nullish()
    .transform((v) => v ?? true),
  /**
   * What is left of the line after order edits (Admin API 2024-01 on). 0: an edit removed it; the
   * line stays in `line_items` with its first `quantity`. Absent (older versions): nothing removed.
   */
  current_quantity: z
    .number()
    .int()
    .nonnegative()
    .nullish()
    .transform((v) => v ?? null),
  /**
   * The line's taxes in the shop's money (`price`, or `price_set.shop_money.amount` where only that is
   * given): taken out of the price when the shop's prices include tax (`taxes_included`).
   */
  tax_lines: z
    .array(
      z
        .object({
          price: money.nullish(),
          price_set: moneySet,
        })
        .transform((line) => ({ price: line.price ?? line.price_set?.shop_money?.amount ?? '0' })),
    )
    .nullish()
    .transform((v) => v ?? []),
});
export type ShopifyLineItem = z.output<typeof shopifyLineItem>;

const address = z
  .object({
    name: nullableText,
    first_name: nullableText,
    last_name: nullableText,
    phone: nullableText,
    /** ISO 3166 alpha-2 ("US"): a phone typed nationally is read in this country (src/phone-number.ts). */
    country_code: nullableText,
  })
  .nullish();

export const shopifyCustomer = z.object({
  id: shopifyId.nullish().transform((v) => v ?? null),
  email: nullableText,
  first_name: nullableText,
  last_name: nullableText,
  phone: nullableText,
});

export const shopifyOrder = z.object({
  id: shopifyId,
  name: z.string().nullish(),
  email: nullableText,
  contact_email: nullableText,
  currency: z.string().nullish(),
  /** A test order (Shopify's Bogus Gateway, a test-mode payment): no money changed hands. */
  test: z.boolean().nullish(),
  /** The shop's prices include tax (VAT, GST): a line's `price` holds its `tax_lines`. */
  taxes_included: z.boolean().nullish(),
  cancelled_at: nullableText,
  customer: shopifyCustomer.nullish().transform((v) => v ?? null),
  billing_address: address,
  shipping_address: address,
  line_items: z.array(shopifyLineItem),
  /** Cart attributes: where themes without app blocks put the video message (same names as the properties). */
  note_attributes: z
    .array(lineItemProperty)
    .nullish()
    .transform((v) => v ?? []),
  updated_at: nullableText,
});
export type ShopifyOrder = z.output<typeof shopifyOrder>;

export const FULFILLMENT_STATUSES = ['pending', 'open', 'success', 'cancelled', 'error', 'failure'] as const;

export const shopifyFulfillment = z.object({
  id: shopifyId,
  order_id: shopifyId,
  name: z.string().nullish(),
  status: nullableText,
  tracking_company: nullableText,
  tracking_number: nullableText,
  tracking_numbers: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  shipment_status: nullableText,
  /** `quantity`: how many of the line this package carries (a line can ship in several). */
  line_items: z
    .array(
      z.object({
        id: shopifyId,
        quantity: z
          .number()
          .int()
          .nonnegative()
          .nullish()
          .transform((v) => v ?? null),
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
  created_at: z.string().pipe(z.iso.datetime({ offset: true })),
  updated_at: z.string().pipe(z.iso.datetime({ offset: true })),
});
export type ShopifyFulfillment = z.output<typeof shopifyFulfillment>;

export const shopifyFulfillmentEvent = z.object({
  id: shopifyId,
  fulfillment_id: shopifyId,
  order_id: shopifyId,
  status: z.string(),
  happened_at: z
    .string()
    .pipe(z.iso.datetime({ offset: true }))
    .nullish(),
  created_at: z
    .string()
    .pipe(z.iso.datetime({ offset: true }))
    .nullish(),
  /**
   * Shopify's delivery estimate from its carrier feed. Not checked here: an estimate we cannot read is
   * dropped (fulfillment-events.ts), it must not fail a `delivered` event.
   */
  estimated_delivery_at: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
});
export type ShopifyFulfillmentEvent = z.output<typeof shopifyFulfillmentEvent>;

export const customersRedact = z.object({
  shop_domain: z.string(),
  customer: z.object({ id: shopifyId.nullish(), email: nullableText, phone: nullableText }),
  orders_to_redact: z
    .array(shopifyId)
    .nullish()
    .transform((v) => v ?? []),
});

export const customersDataRequest = z.object({
  shop_domain: z.string(),
  customer: z.object({ id: shopifyId.nullish(), email: nullableText, phone: nullableText }),
  orders_requested: z
    .array(shopifyId)
    .nullish()
    .transform((v) => v ?? []),
  data_request: z.object({ id: shopifyId }).nullish(),
});

export const shopRedact = z.object({ shop_domain: z.string() });
