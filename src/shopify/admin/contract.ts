/**
 * The embedded admin's JSON API as the page reads it (docs/shopify.md, "The embedded admin's API"):
 * the one module both sides import (issue 32). The page (src/shopify/admin/ui/) reads these shapes;
 * the API's routes (./routes.ts, src/billing/shopify-routes.ts) declare that what they answer
 * `satisfies` them, so a change on one side that the other does not know is a compile error.
 * Shapes may gain fields; the page reads only these. Browser code imports it: only types from the
 * server's modules (erased when the page is bundled), and plain values.
 */
import type { CarrierCode } from '../../carriers/carrier-code.ts';
import type { BrandFont } from '../../design/tokens.ts';
import type { Locale } from '../../i18n/locale.ts';
import type { GiftPackages, SendMethod, ShopifySubscriptionStatus } from '../../vocabulary.ts';

export type { BrandFont, CarrierCode, GiftPackages, Locale, SendMethod };

export const STAGES = [
  'awaiting_video',
  'needs_recipient',
  'tracking',
  'waiting_on_shopify',
  'delivered',
  'sent',
  'viewed',
  'needs_attention',
] as const;
export type Stage = (typeof STAGES)[number];
/** What an order can show beyond the filters: a date-triggered send waiting for its day, a cancelled order. */
export type DisplayStage = Stage | 'scheduled' | 'cancelled';

/** Every answer that holds dates carries the shop's time zone (IANA): the admin writes them in it. */
export interface InShopTime {
  time_zone: string;
}

export interface HomeJson extends InShopTime {
  shop: { domain: string; name: string };
  period: { from: string; to: string };
  counts: { video_orders: number; delivered: number; sent: number; viewed: number; needs_attention: number };
  median_delivery_to_sent_seconds: number | null;
  /** Video line items of the period's Shopify orders that did not become video orders, and why (newest first, at most 20). */
  refused_lines: Array<{
    shopify_order_id: string;
    shopify_order_name: string | null;
    reason: string;
    refused_at: string;
  }>;
}

export interface OrderSummary {
  id: string;
  shopify_order_name: string | null;
  /** The shop's own test gift from the setup guide: never billed, marked "Test". */
  test_gift: boolean;
  sender_name: string;
  sender_email: string;
  recipient_name: string;
  stage: DisplayStage;
  stage_label: string;
  created_at: string;
  delivered_at: string | null;
  sent_at: string | null;
  viewed_at: string | null;
  attention: string | null;
}

export interface OrderList extends InShopTime {
  data: OrderSummary[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The /v1 order JSON: the fields the page shows. */
export interface ApiOrder {
  id: string;
  name: string;
  email: string;
  recipient_name: string;
  recipient_email: string | null;
  recipient_phone: string | null;
  send_method: string;
  video_title: string;
  status: string;
  /** Integer cents, or null (spec: prices are integer cents). */
  price: number | null;
  record_url?: string;
  playback_url?: string;
}

export interface TimelineEntry {
  at: string;
  source: string;
  source_label: string;
  title: string;
  detail: string | null;
  /** A time the entry is about (delivered at, next try), written by the page in the shop's time zone. */
  moment?: { label: string; at: string };
}

export interface OrderDetail extends InShopTime {
  order: ApiOrder;
  shopify_order_name: string | null;
  test_gift: boolean;
  stage: DisplayStage;
  stage_label: string;
  waiting_reason: string | null;
  attention: string | null;
  tracking: null | {
    carrier: string;
    tracking_number: string;
    /** null until the carrier's first answer. */
    status: string | null;
    status_label: string;
    last_checked_at: string | null;
    next_check_at: string | null;
    estimated_delivery_at: string | null;
  };
  warnings: string[];
  record_url: string | null;
  actions: { mark_delivered: boolean; resend: boolean; edit_recipient: boolean; cancel: boolean };
  /** Why an action does not apply, in words (null when it does): shown on the disabled button. */
  action_refusals: {
    mark_delivered: string | null;
    resend: string | null;
    edit_recipient: string | null;
    cancel: string | null;
  };
  timeline: TimelineEntry[];
  /** `shopify://admin/orders/{id}`: App Bridge opens the Shopify order in the admin. */
  shopify_order_url: string | null;
  /** The currency `order.price` is in (its minor units): the Shopify order's, else USD. */
  price_currency: string;
  /** The video as the recipient plays it; null until it is processed. */
  video_url: string | null;
}

export const CARRIERS: ReadonlyArray<{ value: CarrierCode; label: string }> = [
  { value: 'ups', label: 'UPS' },
  { value: 'fedex', label: 'FedEx' },
  { value: 'usps', label: 'USPS' },
];

/** The languages the store's pages and messages can speak (src/i18n/locale.ts LOCALES), each named in itself. */
export const LANGUAGES: ReadonlyArray<{ value: Locale; label: string }> = [
  { value: 'en', label: 'English' },
  { value: 'fr', label: 'Français' },
  { value: 'es', label: 'Español' },
];

/** The fonts the merchant chooses from, in words (src/design/tokens.ts FONT_STACKS). */
export const BRAND_FONT_CHOICES: ReadonlyArray<{ value: BrandFont; label: string }> = [
  { value: 'modern', label: 'Modern (sans-serif)' },
  { value: 'classic', label: 'Classic (serif)' },
  { value: 'rounded', label: 'Rounded' },
];

export interface SettingsJson extends InShopTime {
  shop: string;
  active: boolean;
  fallback_delivered: boolean;
  carrier_aliases: Record<string, CarrierCode>;
  video_product_ids: string[];
  video_variant_ids: string[];
  gift_packages: GiftPackages;
  default_send_method?: SendMethod;
  /** The store's logo: an https URL the merchant gave, or Doorstep's URL of their upload; null: the name alone. */
  logo_url?: string | null;
  /** The sender's "not watched yet" note, three days after sending. */
  not_watched_note?: boolean;
  /** The language of the store's pages, e-mails and SMS (the admin itself stays English). */
  locale?: Locale;
  /** The pages' and e-mails' accent (`#rrggbb`), or null: Doorstep's. */
  accent_color?: string | null;
  font?: BrandFont | null;
  /** The e-mails' Reply-To, or null. */
  contact_email?: string | null;
  unmapped_tracking_companies?: Array<{ name: string; fulfillments: number; last_seen_at: string | null }>;
}

export type SettingsUpdate = Partial<
  Pick<
    SettingsJson,
    | 'fallback_delivered'
    | 'carrier_aliases'
    | 'video_product_ids'
    | 'video_variant_ids'
    | 'gift_packages'
    | 'default_send_method'
    | 'logo_url'
    | 'not_watched_note'
    | 'locale'
    | 'accent_color'
    | 'font'
    | 'contact_email'
  >
>;

export interface CredentialsJson {
  app_id: string;
  api_key_hint: string | null;
}

export interface RotatedCredentials {
  app_id: string;
  api_key: string;
}

export interface DataExportList extends InShopTime {
  /** A customer asked for by e-mail only has no id; Shopify's request may carry no id either. */
  data: Array<{ id: string; data_request_id: string | null; customer_id: string | null; created_at: string }>;
}

export interface BillingJson {
  subscription: {
    status: 'none' | ShopifySubscriptionStatus;
    capped_amount_cents: number;
    currency: string;
    terms: string;
    revenue_share_bps: number;
    confirmation_url: string | null;
    approved_at: string | null;
    /** A test charge: nothing is billed (a development or review store). */
    test: boolean;
  };
  month: {
    month: string;
    videos_charged: number;
    charged_cents: number;
    pending_cents: number;
    unbilled_cents: number;
    over_cap_cents: number;
    /** Charges whose attempt may have reached Shopify before their plan ended: never charged again. */
    maybe_charged_cents: number;
    /** Charges refused because each was larger than what was left of the cap. */
    videos_over_cap: number;
  };
  notice: string | null;
}

/** GET /shopify/api/setup (src/shopify/admin/setup/steps.ts). */
export interface SetupJson {
  steps: Array<{
    id: 'theme_block' | 'video_product' | 'plan' | 'test_gift';
    title: string;
    description: string;
    done: boolean;
    action: { label: string; url: string; target: 'top' | 'app' } | null;
  }>;
  completed: number;
}
