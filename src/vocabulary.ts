/**
 * The words Doorstep stores in text columns, each as one list and its union type. The database row
 * types (`src/db/schema.ts`) and the domain code use these, so a misspelt status or timeline entry is
 * a type error, not a silent new value. This file imports nothing: every layer may use it.
 *
 * Carrier codes (`ups`, `fedex`, `usps`) are the carriers module's own list: `src/carriers/carrier-code.ts`.
 */

/** The order lifecycle (see `src/orders/state-machine.ts`). */
export const ORDER_STATUSES = ['created', 'recorded', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** docs/design.md §1 `send_method`. */
export const SEND_METHODS = ['email', 'sms', 'email_and_sms'] as const;
export type SendMethod = (typeof SEND_METHODS)[number];

/** docs/design.md §1 `send_trigger`. */
export const SEND_TRIGGERS = ['package', 'date', 'now'] as const;
export type SendTrigger = (typeof SEND_TRIGGERS)[number];

/**
 * Where a change came from; every timeline entry names one. `sender` is the shopper on the record
 * page (today: supplying the recipient a Shopify order came without); `admin` is the merchant acting
 * in the embedded admin inside Shopify (not their API client, so the timeline can tell them apart).
 * `recipient` is the person the gift is for, on the watch page (their thank-you reply).
 */
export const EVENT_SOURCES = ['api', 'shopify', 'carrier', 'sender', 'system', 'admin', 'recipient'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/**
 * Every entry an order's timeline (`GET /v1/orders/{id}/events`) can hold. Entries are facts for
 * people (the merchant, support); the typed domain events that modules react to are a separate list
 * (`src/orders/order-events.ts`).
 */
export const TIMELINE_EVENT_TYPES = [
  // The order itself (written by OrderService)
  'order.created',
  'order.needs_recipient',
  'order.updated',
  'order.recorded',
  'order.delivered',
  'order.cancelled',
  'order.deleted',
  'order.erased',
  'shipment.set',
  'shipment.cleared',
  'delivery.signal_ignored',
  // The video
  'video.uploaded',
  'video.processing_failed',
  'video.sent',
  'video.viewed',
  // The recipient's thank-you reply (src/thanks/)
  'thanks.recorded',
  'thanks.sent',
  'thanks.not_sent',
  // Tracking
  'tracking.warning',
  'tracking.status',
  // A free signal's delivery estimate, used while the carrier gives none (docs/tracking.md "Free signals")
  'tracking.estimate',
  'tracking.stopped',
  'tracking.carrier_unavailable',
  // Sending
  'send.queued',
  'send.waiting',
  'send.withdrawn',
  'send.cancelled',
  'send.retry_scheduled',
  'send.requeued',
  'send.failed',
  'send.uncertain',
  // An uncertain send settled by its provider's word (sent, or re-sent because it never got it)…
  'send.resolved',
  // …or, where no provider could tell, put to the merchant (admin "needs attention", one owner e-mail).
  'send.attention',
  'send.resend_requested',
  'send.bounced',
  'note.sent',
  'note.not_watched',
  // Shopify
  'delivery.via_shopify',
  'delivery.awaiting_shipment',
  'delivery.blocked',
  'delivery.gift_changed',
  // A box of a gift in several was delivered by its carrier: the video waits for the rest.
  'delivery.package_arrived',
] as const;
export type TimelineEventType = (typeof TIMELINE_EVENT_TYPES)[number];

/**
 * The typed domain events an order change emits (their payloads: `src/orders/order-events.ts`).
 * Stored in the order outbox until each subscriber has handled them.
 */
export const ORDER_EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.shipment_set',
  'order.shipment_cleared',
  'order.delivered',
  'order.recorded',
  'order.sent',
  'order.viewed',
  'order.thanked',
  'order.cancelled',
  'order.deleted',
  'order.erased',
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/** What we send. Each kind is sent at most once per order and channel (the `sends_one_live` index). */
export const SEND_KINDS = [
  'recipient_video',
  'sender_sent_note',
  'sender_viewed_note',
  'sender_record_link',
  // The recipient's e-mail bounced after it left (docs/notifications.md "Bounces").
  'sender_bounce_note',
  /** The recipient's thank-you reply, to the sender (src/thanks/). */
  'sender_thanks',
  'sender_not_watched_note',
] as const;
export type SendKind = (typeof SEND_KINDS)[number];

/**
 * What the three-day check of an unwatched video decided (`sender_nudges.outcome`, and the
 * `note.not_watched` timeline entry): the note was queued, or why not.
 */
export const NOT_WATCHED_OUTCOMES = [
  'queued',
  'already_watched',
  'setting_off',
  'no_sender_contact',
  'order_stopped',
  'recipient_unreachable',
] as const;
export type NotWatchedOutcome = (typeof NOT_WATCHED_OUTCOMES)[number];

export const CHANNELS = ['email', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * pending → claimed → sending → sent | failed; `uncertain` after a crash mid-send; `cancelled`;
 * `replaced`: sent to an address the recipient's details no longer hold, then resent to the new one
 * at the merchant's request (kept on record; no longer the order's live message).
 */
export const SEND_STATUSES = [
  'pending',
  'claimed',
  'sending',
  'sent',
  'failed',
  'uncertain',
  'cancelled',
  'replaced',
] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/**
 * The carrier-neutral status of a package. The names follow EasyPost's normalized statuses
 * (docs/carriers/NOTES.md, "How the aggregators behave") plus `not_found`: a number the carrier does
 * not know (yet) is an answer, not an error.
 */
export const TRACKING_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'available_for_pickup',
  'return_to_sender',
  'failure',
  'not_found',
  'unknown',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

/** Why tracking stopped (`trackings.stopped_reason`). */
export const TRACKING_STOP_REASONS = [
  'delivered',
  'expired',
  'returned',
  'order_delivered',
  'order_cancelled',
  'order_deleted',
  'order_erased',
  'shipment_cleared',
] as const;
export type TrackingStopReason = (typeof TRACKING_STOP_REASONS)[number];

/** What became of a carrier's pushed event (`carrier_push_events.outcome`). */
export const CARRIER_PUSH_OUTCOMES = [
  'applied', // recorded on the package, as a poll result would be
  'stale', // older than what we already know about the package
  'untracked', // no package of ours is tracked under that number (any more)
] as const;
export type CarrierPushOutcome = (typeof CARRIER_PUSH_OUTCOMES)[number];

/** The e-mail providers whose event webhooks we take (docs/notifications.md "Bounces"). */
export const EMAIL_PROVIDERS = ['postmark', 'ses', 'sendgrid'] as const;
export type EmailProvider = (typeof EMAIL_PROVIDERS)[number];

/** What became of a provider's e-mail event (`email_events.outcome`). */
export const EMAIL_EVENT_OUTCOMES = [
  'send_failed', // a hard bounce, complaint or drop: the send became `failed`
  'recorded', // kept for the record only (soft bounce, deferral, delivery, opens…)
  'already_settled', // its send was failed, replaced or not sent any more: nothing to change
  'unknown_message', // no send of ours carries that message id
] as const;
export type EmailEventOutcome = (typeof EMAIL_EVENT_OUTCOMES)[number];

export const VIDEO_STATUSES = ['pending', 'processed', 'failed'] as const;

/** What an upload is: the sender's gift video, or the recipient's thank-you reply video. */
export const VIDEO_PURPOSES = ['gift', 'thanks'] as const;
export type VideoPurpose = (typeof VIDEO_PURPOSES)[number];

/** What a thank-you reply is: a short video or a written note. */
export const THANKS_REPLIES = ['video', 'note'] as const;
export type ThanksReply = (typeof THANKS_REPLIES)[number];
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

export const WEBHOOK_RECEIPT_STATUSES = ['received', 'processed', 'failed'] as const;
export type WebhookReceiptStatus = (typeof WEBHOOK_RECEIPT_STATUSES)[number];

/**
 * Which packages a Shopify video message sold as a non-shipping add-on waits for (a shop setting):
 * every shipped item of the order, or only the item the storefront block was added to.
 */
export const GIFT_PACKAGE_MODES = ['all_shipped_items', 'gift_item'] as const;
export type GiftPackages = (typeof GIFT_PACKAGE_MODES)[number];

/**
 * A Shopify app subscription's status, lower-cased from Shopify's `AppSubscriptionStatus`
 * (ACCEPTED, deprecated, is stored as `pending`: not yet active).
 */
export const SHOPIFY_SUBSCRIPTION_STATUSES = [
  'pending',
  'active',
  'declined',
  'cancelled',
  'frozen',
  'expired',
] as const;
export type ShopifySubscriptionStatus = (typeof SHOPIFY_SUBSCRIPTION_STATUSES)[number];

/**
 * A sent video's usage charge (src/billing/usage-charges.ts): `pending` until Shopify answers;
 * `recorded` (a usage record exists); `over_cap` (the capped amount would be exceeded: the
 * shortfall is kept); `unbilled` (no active subscription: a debt shown to the merchant);
 * `no_charge` (no price or a zero share: nothing owed, Shopify never called).
 */
export const USAGE_CHARGE_STATUSES = ['pending', 'recorded', 'over_cap', 'unbilled', 'no_charge'] as const;
export type UsageChargeStatus = (typeof USAGE_CHARGE_STATUSES)[number];
