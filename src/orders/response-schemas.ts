import { z } from 'zod';
import { CARRIER_CODES } from '../carriers/carrier-code.ts';
import { EVENT_SOURCES, ORDER_STATUSES, SEND_METHODS, SEND_TRIGGERS, TIMELINE_EVENT_TYPES } from '../vocabulary.ts';

/**
 * What the order API answers, as zod schemas: the serializer's output types are inferred from these
 * and the OpenAPI document (src/openapi/document.ts) is generated from them, so the two cannot drift.
 * The spec (docs/spec/order-update-interface.md §2) fixes the names, order and types.
 */

/** `YYYY-MM-DDTHH:MM:SSZ`: UTC, whole seconds (spec §2). */
export const timestampJson = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  .meta({ description: 'UTC, whole seconds: YYYY-MM-DDTHH:MM:SSZ', examples: ['2026-12-24T09:00:00Z'] });

const flag = (description: string) => z.enum(['0', '1']).meta({ description });

/** The spec's warning object (§2): it precedes the order fields in an update response. */
export const warningJson = z
  .object({ type: z.literal('request'), message: z.string() })
  .meta({ description: 'Why a tracking number did not validate; the number is stored and tracked anyway.' });

/** The order exactly as spec §2 lists it: 26 fields, in this order, with these types. */
export const orderJson = z.object({
  id: z.string().meta({ examples: ['ord_5f0c6d1e2a3b4c5d6e7f8091'] }),
  uuid: z.uuid(),
  name: z.string().meta({ description: "The sender's name." }),
  email: z.string().meta({ description: "The sender's e-mail address." }),
  recipient_name: z.string(),
  recipient_email: z.string().nullable(),
  recipient_phone: z.string().nullable().meta({ description: 'E.164, e.g. +14155550123.' }),
  record_url: z
    .url()
    .meta({ description: 'Where the sender records the video (no credentials: the uuid is the key).' }),
  playback_url: z.url().meta({ description: 'Where the recipient watches it.' }),
  send_method: z.enum(SEND_METHODS),
  send_trigger: z.enum(SEND_TRIGGERS),
  send_on: timestampJson.nullable(),
  carrier: z.enum(CARRIER_CODES).nullable(),
  tracking_number: z.string().nullable(),
  delivered: flag('"1" once the package is delivered; delivery cannot be undone.'),
  video_title: z.string(),
  video_duration: z
    .string()
    .regex(/^\d+(\.\d)?$/)
    .meta({ description: 'Seconds, at most one decimal; "0" before processing.', examples: ['12.4'] }),
  video_processed: flag('"1" once the video is processed and can be watched.'),
  price: z.int().min(0).nullable().meta({ description: 'Integer cents.' }),
  status: z.enum(ORDER_STATUSES),
  created_at: timestampJson,
  updated_at: timestampJson,
  recorded_at: timestampJson.nullable(),
  delivered_at: timestampJson.nullable(),
  sent_at: timestampJson.nullable(),
  viewed_at: timestampJson.nullable(),
});
export type OrderJson = z.output<typeof orderJson>;

/** A create or update answer: `warning` first when there is one (spec §2), then the order's fields. */
export const orderWithWarningJson = z.object({ warning: warningJson.optional(), ...orderJson.shape });

/** `GET /v1/orders`: one page, newest first; pass `next_cursor` as `cursor` for the next. */
export const orderPageJson = z.object({
  data: z.array(orderJson),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

/** One line of an order's timeline (`GET /v1/orders/{id}/events`). */
export const timelineEntryJson = z.object({
  id: z.string().meta({ examples: ['evt_42'] }),
  type: z.enum(TIMELINE_EVENT_TYPES),
  source: z.enum(EVENT_SOURCES),
  data: z.record(z.string(), z.unknown()),
  created_at: timestampJson,
});
export type TimelineEntryJson = z.output<typeof timelineEntryJson>;

export const timelineJson = z.object({ data: z.array(timelineEntryJson) });
