import { resendPlan, type RecipientSendRecord } from '../../notifications/send-policy.ts';
import { formatTimestamp, recordUrl, serializeOrder, type OrderJson, type OrderRow } from '../../orders/serializer.ts';
import { numberWarningFate } from '../../orders/number-warning.ts';
import type { TimelineEntryJson } from '../../orders/timeline.ts';
import type { TrackingRow } from '../../tracking/trackings.ts';
import type { OrderContext } from './order-reads.ts';
import { attentionReason, deriveStage, STAGE_LABELS, waitingReason, type OrderStage } from './stage.ts';
import { describeTimelineEntry, SOURCE_LABELS, trackingStatusWords } from './timeline-words.ts';

export type AdminAction = 'mark_delivered' | 'resend' | 'edit_recipient' | 'cancel';

/**
 * Whether each action applies to the order as it is, and why not in words (the 409 message). The
 * services decide again under the order's lock; this is what the admin shows and refuses early.
 */
export function actionRefusals(
  order: OrderRow,
  sends: ReadonlyArray<RecipientSendRecord>,
  now: Date,
): Record<AdminAction, string | null> {
  const cancelled = order.status === 'cancelled' ? 'The order is cancelled.' : null;
  return {
    mark_delivered: cancelled ?? (order.delivered ? 'The order is already delivered.' : null),
    resend: cancelled ?? refusalOf(resendPlan(order, sends, now)),
    edit_recipient: cancelled,
    cancel:
      cancelled ?? (order.sent_at ? 'The video has already been sent; the order can no longer be cancelled.' : null),
  };
}

function refusalOf(plan: ReturnType<typeof resendPlan>): string | null {
  return 'refused' in plan ? plan.refused : null;
}

export interface OrderSummaryJson {
  id: string;
  shopify_order_name: string | null;
  /** The shop's own test gift from the setup guide: never billed, marked "Test" on the pages. */
  test_gift: boolean;
  sender_name: string;
  sender_email: string;
  recipient_name: string;
  stage: OrderStage;
  stage_label: string;
  created_at: string;
  delivered_at: string | null;
  sent_at: string | null;
  viewed_at: string | null;
  attention: string | null;
}

const optional = (date: Date | null) => (date ? formatTimestamp(date) : null);

export function orderSummaryJson(context: OrderContext): OrderSummaryJson {
  const { order, facts } = context;
  const stage = deriveStage(facts);
  return {
    id: order.id,
    shopify_order_name: context.shopifyOrderName,
    test_gift: context.testGift,
    sender_name: order.name,
    sender_email: order.email,
    recipient_name: order.recipient_name,
    stage,
    stage_label: STAGE_LABELS[stage],
    created_at: formatTimestamp(order.created_at),
    delivered_at: optional(order.delivered_at),
    sent_at: optional(order.sent_at),
    viewed_at: optional(order.viewed_at),
    attention: attentionReason(facts),
  };
}

export interface TrackingJson {
  carrier: string;
  tracking_number: string;
  status: string | null;
  status_label: string;
  last_checked_at: string | null;
  next_check_at: string | null;
  estimated_delivery_at: string | null;
}

/** The package the order ships with now, and what tracking knows of it (a row of another, earlier package is not it). */
export function trackingJson(order: OrderRow, tracking: TrackingRow | null): TrackingJson | null {
  if (!order.carrier || !order.tracking_number) return null;
  const row =
    tracking && tracking.carrier === order.carrier && tracking.tracking_number === order.tracking_number
      ? tracking
      : null;
  return {
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    status: row?.status ?? null,
    status_label: row?.status ? trackingStatusWords(row.status) : 'Not checked yet',
    last_checked_at: optional(row?.last_polled_at ?? null),
    next_check_at: optional(row?.next_poll_at ?? null),
    estimated_delivery_at: optional(row?.estimated_delivery_at ?? null),
  };
}

/**
 * What still stands from the timeline: the last tracking-number warning, unless answered or
 * replaced, and a carrier that stopped answering since its last status.
 */
export function warningsFrom(timeline: readonly TimelineEntryJson[]): string[] {
  const warnings: string[] = [];
  const lastNumberWarning = timeline.findLastIndex((entry) => entry.type === 'tracking.warning');
  if (lastNumberWarning >= 0 && numberWarningFate(timeline, lastNumberWarning) === 'standing') {
    const detail = describeTimelineEntry(timeline[lastNumberWarning]!).detail;
    if (detail) warnings.push(detail);
  }
  let carrierWarning: string | null = null;
  for (const entry of timeline) {
    if (entry.type === 'shipment.set' || entry.type === 'shipment.cleared') carrierWarning = null;
    if (entry.type === 'tracking.status' || entry.type === 'tracking.stopped') carrierWarning = null;
    if (entry.type === 'tracking.carrier_unavailable') carrierWarning = describeTimelineEntry(entry).detail;
  }
  if (carrierWarning) warnings.push(carrierWarning);
  return warnings;
}

export interface OrderDetailJson {
  order: OrderJson;
  shopify_order_name: string | null;
  test_gift: boolean;
  stage: OrderStage;
  stage_label: string;
  waiting_reason: string | null;
  attention: string | null;
  tracking: TrackingJson | null;
  warnings: string[];
  record_url: string | null;
  actions: Record<AdminAction, boolean>;
  /** Why each action that does not apply does not, in words (null when it applies): the page shows it. */
  action_refusals: Record<AdminAction, string | null>;
  timeline: Array<{
    at: string;
    source: string;
    source_label: string;
    title: string;
    detail: string | null;
    moment?: { label: string; at: string };
  }>;
  /** The Shopify order in the shop's admin (App Bridge opens `shopify://admin/…` there); null without one. */
  shopify_order_url: string | null;
  /** The currency `order.price` is in (its minor units): the Shopify order's, else USD. */
  price_currency: string;
  /** The video as the recipient plays it (the playback rendition), for the page's player; null until processed. */
  video_url: string | null;
}

export function orderDetailJson(
  context: OrderContext,
  timeline: readonly TimelineEntryJson[],
  publicUrl: string,
  now: Date,
  /** The shop's time zone, for dates written into sentences. */
  timeZone = 'UTC',
): OrderDetailJson {
  const { order, facts } = context;
  const stage = deriveStage(facts);
  const refusals = actionRefusals(order, context.sends, now);
  return {
    order: serializeOrder(order, publicUrl),
    shopify_order_name: context.shopifyOrderName,
    test_gift: context.testGift,
    stage,
    stage_label: STAGE_LABELS[stage],
    waiting_reason: waitingReason(facts, stage, timeZone),
    attention: attentionReason(facts),
    tracking: trackingJson(order, context.tracking),
    warnings: warningsFrom(timeline),
    // Recording makes sense until the video is out; after that the link only shows what was sent.
    record_url: order.status === 'cancelled' || order.sent_at ? null : recordUrl(publicUrl, order.uuid),
    actions: {
      mark_delivered: refusals.mark_delivered === null,
      resend: refusals.resend === null,
      edit_recipient: refusals.edit_recipient === null,
      cancel: refusals.cancel === null,
    },
    action_refusals: refusals,
    timeline: timeline.map((entry, index) => ({
      at: entry.created_at,
      source: entry.source,
      source_label: SOURCE_LABELS[entry.source],
      ...describeTimelineEntry(entry),
      // A number the carrier went on to report on was right after all: history, not an alarm.
      ...(entry.type === 'tracking.warning' && numberWarningFate(timeline, index) === 'answered'
        ? { title: 'The carrier did not know the tracking number at first' }
        : {}),
    })),
    shopify_order_url: context.shopifyOrderId ? `shopify://admin/orders/${context.shopifyOrderId}` : null,
    price_currency: context.currency ?? 'USD',
    // Relative: the admin page is served by this app, whichever address Shopify knows it by.
    video_url: order.video_processed ? `/watch/${order.uuid}/video` : null,
  };
}
