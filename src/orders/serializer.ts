import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { OrdersTable } from '../db/schema.ts';
import type { OrderJson, orderWithWarningJson, warningJson } from './response-schemas.ts';

export type OrderRow = Selectable<OrdersTable>;

// The answer's types come from the response schemas the OpenAPI document is generated from: a field
// the serializer adds, drops or retypes is a type error here (and its order is pinned by a test).
export type { OrderJson };
export type Warning = z.output<typeof warningJson>;
type OrderWithWarningJson = z.output<typeof orderWithWarningJson>;

/** `YYYY-MM-DDTHH:MM:SSZ`: UTC, whole seconds (spec §2). */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const formatOptional = (date: Date | null): string | null => (date ? formatTimestamp(date) : null);

/** Seconds as numeric text with at most one decimal: 124 tenths → "12.4", 120 → "12". */
export function formatDuration(tenths: number): string {
  return tenths % 10 === 0 ? String(tenths / 10) : (tenths / 10).toFixed(1);
}

export function recordUrl(publicUrl: string, uuid: string): string {
  return `${publicUrl}/record/${uuid}`;
}

export function playbackUrl(publicUrl: string, uuid: string): string {
  return `${publicUrl}/watch/${uuid}`;
}

export function serializeOrder(order: OrderRow, publicUrl: string): OrderJson {
  return {
    id: order.id,
    uuid: order.uuid,
    name: order.name,
    email: order.email,
    recipient_name: order.recipient_name,
    recipient_email: order.recipient_email,
    recipient_phone: order.recipient_phone,
    record_url: recordUrl(publicUrl, order.uuid),
    playback_url: playbackUrl(publicUrl, order.uuid),
    send_method: order.send_method,
    send_trigger: order.send_trigger,
    send_on: formatOptional(order.send_on),
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    delivered: order.delivered ? '1' : '0',
    video_title: order.video_title,
    video_duration: formatDuration(order.video_duration_tenths),
    video_processed: order.video_processed ? '1' : '0',
    price: order.price,
    status: order.status,
    created_at: formatTimestamp(order.created_at),
    updated_at: formatTimestamp(order.updated_at),
    recorded_at: formatOptional(order.recorded_at),
    delivered_at: formatOptional(order.delivered_at),
    sent_at: formatOptional(order.sent_at),
    viewed_at: formatOptional(order.viewed_at),
  };
}

/** An update response: the warning, when there is one, comes before the order's fields. */
export function serializeUpdateResponse(
  order: OrderRow,
  publicUrl: string,
  warning: Warning | null,
): OrderWithWarningJson {
  const json = serializeOrder(order, publicUrl);
  return warning ? { warning, ...json } : json;
}
