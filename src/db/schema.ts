import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type {
  CarrierPushOutcome,
  Channel,
  EmailEventOutcome,
  EmailProvider,
  EventSource,
  GiftPackages,
  NotWatchedOutcome,
  OrderEventType,
  OrderStatus,
  SendKind,
  SendMethod,
  SendStatus,
  SendTrigger,
  ShopifySubscriptionStatus,
  ThanksReply,
  TimelineEventType,
  TrackingStatus,
  TrackingStopReason,
  UsageChargeStatus,
  VideoPurpose,
  VideoStatus,
  WebhookReceiptStatus,
} from '../vocabulary.ts';

/** Row types of every table, as Kysely sees them. Migrations in ./migrations are the source of truth. */

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface AccountsTable {
  id: string;
  name: string;
  app_id: string;
  /** SHA-256 of the API key, hex. Keys are 256-bit random, so a fast hash is enough (no dictionary to attack). */
  api_key_hash: string;
  revenue_share_bps: number | null;
  /** The current key's last characters (`dsk_…AbCd`), for the admin to name it; null for keys issued before. */
  api_key_hint: ColumnType<string | null, string | null | undefined, string | null>;
  /** The language of the account's pages and messages (src/i18n/locale.ts); `en` by default. */
  locale: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
}

export interface OrdersTable {
  id: string;
  /** Insertion order; used only for stable cursor pagination, never exposed. */
  seq: Generated<number>;
  account_id: string;
  uuid: string;
  status: OrderStatus;
  name: string;
  email: string;
  recipient_name: string;
  recipient_email: string | null;
  recipient_phone: string | null;
  send_method: SendMethod;
  send_trigger: SendTrigger;
  send_on: Timestamp | null;
  carrier: CarrierCode | null;
  tracking_number: string | null;
  delivered: boolean;
  video_title: string;
  video_duration_tenths: Generated<number>;
  video_processed: Generated<boolean>;
  price: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  recorded_at: Timestamp | null;
  delivered_at: Timestamp | null;
  sent_at: Timestamp | null;
  viewed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  /** Soft delete: a deleted order is gone from the API but kept for billing and audit. */
  deleted_at: Timestamp | null;
  /** The sender's mobile number (E.164), when known (migration 019): the not-watched note goes by SMS. */
  sender_phone: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OrderEventsTable {
  id: Generated<number>;
  order_id: string;
  account_id: string;
  type: TimelineEventType;
  source: EventSource;
  data: JSONColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

/** Domain events waiting for one subscriber each (src/orders/outbox.ts). */
export interface OrderOutboxTable {
  seq: Generated<number>;
  subscriber: string;
  order_id: string;
  account_id: string;
  type: OrderEventType;
  /** The event's fields other than `type`. */
  data: JSONColumnType<Record<string, unknown>, string, string>;
  source: EventSource;
  created_at: Timestamp;
  available_at: Timestamp;
  attempts: Generated<number>;
  last_error: string | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  order_id: string;
  /** The warning the first response carried, so a replay answers the same. */
  warning: string | null;
  created_at: CreatedAt;
}

/** Deliveries per carrier and local 15-min slot (src/tracking/delivery-hours-store.ts). */
export interface CarrierDeliveryHoursTable {
  carrier: string;
  round: 'delivery' | 'pickup';
  slot: number;
  /** bigint, read as a number (src/db/database.ts). */
  deliveries: ColumnType<number, number | undefined, number>;
}

export interface TrackingsTable {
  order_id: string;
  account_id: string;
  carrier: CarrierCode;
  tracking_number: string;
  /** The carrier's normalized status at the last successful poll; null before the first. */
  status: TrackingStatus | null;
  description: string | null;
  started_at: Timestamp;
  last_polled_at: Timestamp | null;
  last_changed_at: Timestamp | null;
  last_event_at: Timestamp | null;
  delivered_at: Timestamp | null;
  estimated_delivery_at: Timestamp | null;
  estimated_window_start_at: Timestamp | null;
  consecutive_errors: Generated<number>;
  rate_limited_until: Timestamp | null;
  poll_count: Generated<number>;
  /** Null when tracking has stopped; `stopped_reason` says why. */
  next_poll_at: Timestamp | null;
  stopped_reason: TrackingStopReason | null;
  /** Set while a claimed batch is in flight; a stale batch job whose token no longer matches does nothing. */
  lease_token: string | null;
  lease_until: Timestamp | null;
  updated_at: Timestamp;
  /** The live carrier push subscription (migration 012): when it began and when it lapses; null = none. */
  push_subscribed_at: Timestamp | null;
  push_until: Timestamp | null;
  /** When to (re)subscribe; null = as soon as push is on for the carrier. */
  push_renew_at: Timestamp | null;
  last_pushed_at: Timestamp | null;
  /** The carrier's asynchronous subscription job the package waits on (migration 040, FedEx AIV); null = none. */
  push_job_id: string | null;
  push_job_at: Timestamp | null;
  /** IANA zone of the destination, from the carrier's address parts (migration 015); null until known. */
  destination_time_zone: string | null;
  /**
   * Shopify's delivery estimate (migration 041), kept apart from the carrier's: the schedule uses it only
   * while the carrier gives none (docs/tracking.md "Free signals"). Null when Shopify gave none.
   */
  observed_estimated_delivery_at: Timestamp | null;
  /**
   * When the order was placed (migration 047), copied when tracking starts: a delivery the carrier
   * dates well before it was an earlier shipment's (src/tracking/earlier-shipment.ts). Null on older rows.
   */
  order_placed_at: Timestamp | null;
  /** Since when rate limits have held this package's looks (migration 049); null = a look was answered. */
  rate_limited_since: Timestamp | null;
  /** When the order's timeline was told of that long wait; null = not yet (migration 049). */
  rate_limit_told_at: Timestamp | null;
}

/** A carrier's pushed event, stored raw before it is answered and applied after (tracking owns it). */
export interface CarrierPushEventsTable {
  id: string;
  carrier: CarrierCode;
  tracking_number: string;
  event_key: string;
  body: unknown;
  received_at: Timestamp;
  lease_until: Timestamp | null;
  attempts: Generated<number>;
  processed_at: Timestamp | null;
  outcome: CarrierPushOutcome | null;
}

export interface SendsTable {
  id: string;
  order_id: string;
  account_id: string;
  kind: SendKind;
  channel: Channel;
  status: SendStatus;
  due_at: Timestamp;
  attempts: Generated<number>;
  claim_token: string | null;
  claimed_at: Timestamp | null;
  /** Where it went (set when sending), for the timeline and support. */
  destination: string | null;
  provider_message_id: string | null;
  last_error: string | null;
  sent_at: Timestamp | null;
  /** When the provider reported the e-mail bounced (or a complaint or drop) after it left; then `failed`. */
  bounced_at: Timestamp | null;
  /**
   * A sent recipient video whose order has recorded it (`order.sent` reached notifications): the
   * crash repair (`unrecordedSentVideosQuery`) looks only at sent videos where this is false.
   */
  order_recorded: Generated<boolean>;
  /**
   * An `uncertain` send whose fate no provider could tell: when the merchant was alerted (the
   * admin's "needs attention" and one e-mail to the store owner). Set once (migration 043).
   */
  attention_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** E-mail providers' events (bounces, complaints…), stored raw before they are answered (src/notifications/email-events/email-events.ts). */
export interface EmailEventsTable {
  id: string;
  provider: EmailProvider;
  /** The provider's own event id: a redelivery of one event is one row. */
  event_key: string;
  /**
   * The event as the provider sent it (one element of a SendGrid batch; the SNS envelope for SES),
   * until it is applied; then null (it names the address).
   */
  body: unknown;
  /** What it says, read once at arrival (src/notifications/email-events/email-event-kinds.ts `EmailProviderEvent`). */
  event: unknown;
  received_at: Timestamp;
  processed_at: Timestamp | null;
  outcome: EmailEventOutcome | null;
  send_id: string | null;
}

/** An installed Shopify shop (src/shopify/shops.ts). Token pair and expiries are written together. */
export interface ShopsTable {
  domain: string;
  account_id: string;
  active: Generated<boolean>;
  /** Shopify's own `shipment_status: delivered` delivers the order (on by default). */
  fallback_delivered: Generated<boolean>;
  /** The shop's own tracking-company names → ups | fedex | usps (keys lower-cased). */
  /** Written only through shopSettingsSchema, which takes carrier codes only. */
  carrier_aliases: ColumnType<Record<string, CarrierCode>, string | undefined, string>;
  /** Products / variants the merchant chose as video messages (Shopify ids as text). */
  video_product_ids: ColumnType<string[], string | undefined, string>;
  video_variant_ids: ColumnType<string[], string | undefined, string>;
  /** Which shipped items a non-shipping video add-on waits for. */
  gift_packages: ColumnType<GiftPackages, GiftPackages | undefined, GiftPackages>;
  /** How a video line that gives both an e-mail and a phone is sent. */
  default_send_method: ColumnType<SendMethod, SendMethod | undefined, SendMethod>;
  scopes: string | null;
  access_token: string | null;
  access_token_expires_at: Timestamp | null;
  refresh_token: string | null;
  refresh_token_expires_at: Timestamp | null;
  token_refresh_claimed_until: Timestamp | null;
  installed_at: Timestamp;
  uninstalled_at: Timestamp | null;
  updated_at: Timestamp;
  /** Shopify's `shop.ianaTimezone` ("America/New_York"): the admin's dates (migration 036); null until read. */
  iana_timezone: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookReceiptsTable {
  id: Generated<number>;
  /** X-Shopify-Webhook-Id: one receipt per delivery, however often Shopify retries it. */
  webhook_id: string;
  /** X-Shopify-Event-Id: one event is stored once, whatever webhook id it comes back under. */
  event_id: ColumnType<string | null, string | null | undefined, string | null>;
  topic: string;
  shop: string;
  api_version: string | null;
  triggered_at: Timestamp | null;
  /** The exact bytes whose HMAC was verified, for replay. */
  raw_body: string;
  status: WebhookReceiptStatus;
  error: string | null;
  note: string | null;
  attempts: Generated<number>;
  received_at: Timestamp;
  processed_at: Timestamp | null;
}

/** A shop's test gift (migration 035, written by src/shopify/admin/setup/): never billed, ticks the setup guide. */
export interface ShopifyTestGiftsTable {
  order_id: string;
  shop: string;
  created_at: Timestamp;
}

/** Shopify orders cancelled before their orders/create was processed (migration 045). */
export interface ShopifyCancelledOrdersTable {
  shop: string;
  shopify_order_id: string;
  cancelled_at: Timestamp;
}

/** Video line items that could not become video orders, with why (migration 046). */
export interface ShopifyRefusedLinesTable {
  shop: string;
  shopify_order_id: string;
  line_item_id: string;
  shopify_order_name: string | null;
  reason: string;
  refused_at: Timestamp;
}

export interface ShopifyOrderLinksTable {
  shop: string;
  shopify_order_id: string;
  line_item_id: string;
  order_id: string;
  account_id: string;
  customer_id: string | null;
  customer_email: string | null;
  notice: string | null;
  /** Shopify's name for the order ("#1001"); null on links made before it was kept. */
  shopify_order_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** The line items whose packages deliver the gift; null (older links) = the video line itself. */
  gift_line_item_ids: ColumnType<string[] | null, string | null, string | null>;
  /** How many of each gift line must ship (`{"<line id>": n}`); null (older links) = any package of it. */
  gift_quantities: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  /** The gift lines' titles (`{"<line id>": "Scented candle"}`, migration 050); null on older links. */
  gift_line_titles: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  /** Shopify's `updated_at` of the order payload the gift was taken from; null on older links. */
  gift_updated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The Shopify order's currency ("USD", "EUR"); null on links made before it was kept. */
  currency: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ShopifyFulfillmentsTable {
  shop: string;
  fulfillment_id: string;
  shopify_order_id: string;
  status: string | null;
  line_item_ids: ColumnType<string[] | null, string | null, string | null>;
  /** How many of each line this package carries (`{"<line id>": n}`); null on older rows = all of it. */
  line_quantities: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  tracking_company: string | null;
  tracking_numbers: ColumnType<string[], string | undefined, string>;
  shipment_status: string | null;
  shopify_created_at: Timestamp | null;
  shopify_updated_at: Timestamp | null;
  delivered_at: Timestamp | null;
  updated_at: Timestamp;
  /** The newest `fulfillment_events/create` (migration 041): status, when it happened, its estimate. */
  event_status: string | null;
  event_happened_at: Timestamp | null;
  event_estimated_delivery_at: Timestamp | null;
  /** The package's numbers its carrier reported delivered, normalised (migration 048; packages.ts). */
  carrier_delivered_numbers: ColumnType<string[], string | undefined, string>;
}

export interface ShopifyDataExportsTable {
  id: string;
  shop: string;
  account_id: string;
  data_request_id: string | null;
  customer_id: string | null;
  data: JSONColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface VideosTable {
  id: string;
  /** Upload order; the highest is the order's current video (latest upload wins). */
  seq: Generated<number>;
  order_id: string;
  storage_key: string;
  content_type: string;
  size_bytes: number;
  /** `pending` until processed; `failed` carries `failure_reason`. */
  status: Generated<VideoStatus>;
  failure_reason: string | null;
  duration_tenths: number | null;
  created_at: Timestamp;
  processed_at: Timestamp | null;
  /** The poster frame's storage key (a JPEG the record page captured), or null (migration 016). */
  poster_key: string | null;
  /** What the sender says, typed on the record page; the watch page's captions (migration 021). */
  transcript: string | null;
  /** `gift` (the sender's video) or `thanks` (the recipient's reply video; migration 017). */
  purpose: Generated<VideoPurpose>;
  /** The playback rendition's storage key (migration 034): what every player gets; null before processing. */
  rendition_key: string | null;
  /** The rendition's size in bytes, for Range answers. */
  rendition_bytes: number | null;
  /** When the original upload was deleted (VIDEO_ORIGINAL_RETENTION_DAYS after sending); null while kept. */
  original_deleted_at: Timestamp | null;
}

/** The recipient's thank-you reply, one per order (migration 017; written by src/thanks/). */
export interface ThanksTable {
  order_id: string;
  account_id: string;
  /** The sender's capability: `/thanks/{key}`. */
  key: string;
  /** What the recipient gave last: the video (`video_id`) or the note. */
  reply: ThanksReply;
  note: string | null;
  video_id: string | null;
  recorded_at: Timestamp;
  /** When the sender's e-mail was accepted by the provider; the reply is final from then on. */
  sent_at: Timestamp | null;
}

/** A Shopify app subscription with a usage line item (src/billing/shopify-billing.ts). No personal data. */
export interface ShopifySubscriptionsTable {
  /** Shopify's AppSubscription GID. */
  id: string;
  shop: string;
  account_id: string;
  /** The usage line item's GID: usage records are created under it. */
  line_item_id: string;
  status: ShopifySubscriptionStatus;
  capped_amount_cents: number;
  currency: string;
  terms: string;
  revenue_share_bps: number;
  test: boolean;
  confirmation_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  approved_at: Timestamp | null;
  ended_at: Timestamp | null;
}

/**
 * One sent video's charge (one per order: `order_id` is the key, with no foreign key, so erasing or
 * deleting the order never touches it). Amounts only: no personal data.
 */
export interface ShopifyUsageChargesTable {
  order_id: string;
  shop: string;
  account_id: string;
  price_cents: number | null;
  revenue_share_bps: number;
  amount_cents: number;
  currency: string;
  status: UsageChargeStatus;
  subscription_id: string | null;
  usage_record_id: string | null;
  /** What the cap kept us from charging (over_cap). */
  shortfall_cents: Generated<number>;
  attempts: Generated<number>;
  last_error: string | null;
  /** When the video was sent: the month it is billed in. */
  sent_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  settled_at: Timestamp | null;
}

/** An account's settings (src/accounts/settings.ts, migration 019); no row = the defaults. */
export interface AccountSettingsTable {
  account_id: string;
  /** What the merchant set (https), or null. */
  logo_url: string | null;
  not_watched_note: Generated<boolean>;
  updated_at: Timestamp;
  /** `#rrggbb`, or null: Doorstep's accent (migration 038). */
  accent_color: string | null;
  /** A font of the safe set (src/design/tokens.ts), or null: Doorstep's. */
  font: string | null;
  /** The e-mails' Reply-To, or null: no Reply-To. */
  contact_email: string | null;
}

/** The merchant's uploaded logo, re-encoded as PNG (src/accounts/logo.ts, migration 037). */
export interface AccountLogosTable {
  account_id: string;
  /** Hex SHA-256 of `png`: the logo's URL names it, so a page or e-mail may cache it for ever. */
  sha256: string;
  png: Uint8Array;
  width: number;
  height: number;
  updated_at: Timestamp;
}

/** One order's "not watched yet" check (src/notifications/not-watched.ts, migration 019). */
export interface SenderNudgesTable {
  order_id: string;
  account_id: string;
  due_at: Timestamp;
  decided_at: Timestamp | null;
  outcome: NotWatchedOutcome | null;
  created_at: Timestamp;
}

export interface Database {
  account_settings: AccountSettingsTable;
  account_logos: AccountLogosTable;
  sender_nudges: SenderNudgesTable;
  shopify_subscriptions: ShopifySubscriptionsTable;
  shopify_usage_charges: ShopifyUsageChargesTable;
  shops: ShopsTable;
  webhook_receipts: WebhookReceiptsTable;
  shopify_order_links: ShopifyOrderLinksTable;
  shopify_test_gifts: ShopifyTestGiftsTable;
  shopify_cancelled_orders: ShopifyCancelledOrdersTable;
  shopify_refused_lines: ShopifyRefusedLinesTable;
  shopify_fulfillments: ShopifyFulfillmentsTable;
  shopify_data_exports: ShopifyDataExportsTable;
  sends: SendsTable;
  trackings: TrackingsTable;
  carrier_push_events: CarrierPushEventsTable;
  carrier_delivery_hours: CarrierDeliveryHoursTable;
  email_events: EmailEventsTable;
  accounts: AccountsTable;
  orders: OrdersTable;
  order_events: OrderEventsTable;
  order_outbox: OrderOutboxTable;
  idempotency_keys: IdempotencyKeysTable;
  videos: VideosTable;
  thanks: ThanksTable;
}
