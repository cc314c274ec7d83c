import { createHash } from 'node:crypto';
import { z } from 'zod';
import { summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { isRecord, textOrNull } from './results.ts';
import { END_OF_DAY, instantFromParts, parseDateParts, parseTimeParts, parseUtcOffset } from './time.ts';
import type { TrackingResult } from './types.ts';
import { normalizeUpsStatus } from './ups-status.ts';

/**
 * UPS Track Alert v2 wire format (test/fixtures/carriers/ups-track-alert.openapi.yaml): the
 * subscription answer, and the `TrackingEvent` webhook UPS posts to us. Pure: no I/O.
 */

const subscriptionAnswer = z.looseObject({
  validTrackingNumbers: z.array(z.string()).optional(),
  invalidTrackingNumbers: z.array(z.string()).optional(),
});

/**
 * 200 `PackageSubscriptionSuccessResponse` lists the numbers subscribed and those refused; 400
 * `PackageSubscriptionErrorResponse` refuses the whole request (every number, e.g. VSS210 "at least
 * one valid tracking number"). Numbers the answer does not mention count as refused: never assume a
 * subscription UPS did not confirm.
 */
export function parseUpsSubscriptionResponse(
  requested: readonly string[],
  status: number,
  body: unknown,
): { subscribed: string[]; refused: string[] } {
  if (status === 400) return { subscribed: [], refused: [...requested] };
  const parsed = subscriptionAnswer.safeParse(body);
  if (status !== 200 || !parsed.success) {
    throw new CarrierUnexpectedResponseError(
      'ups',
      `UPS Track Alert subscription answered ${status}: ${summarizeErrorBody(body) ?? 'no detail'}`,
      { status },
    );
  }
  const valid = new Set((parsed.data.validTrackingNumbers ?? []).map((n) => n.trim().toUpperCase()));
  const subscribed = requested.filter((n) => valid.has(n.trim().toUpperCase()));
  const refused = requested.filter((n) => !valid.has(n.trim().toUpperCase()));
  return { subscribed, refused };
}

const date = z.string().regex(/^\d{8}$/);
// HHMMSS; UPS's own examples drop leading zeros ('74700' is 07:47:00), so 1–6 digits are read (parseTimeParts pads).
const time = z.string().regex(/^\d{1,6}$/);

/** `TrackingEventRequest`: trackingNumber and activityStatus are required, everything else optional. */
export const upsTrackingEventSchema = z.looseObject({
  trackingNumber: z.string().regex(/(^1Z[0-9A-Z]{16}$)|(^1R[0-9A-Z]{14}$)|(^1R[0-9A-Z]{26}$)/, {
    error: "trackingNumber must be a 1Z or 1R number (the spec's TrackingNumber pattern)",
  }),
  localActivityDate: date.optional(),
  localActivityTime: time.optional(),
  activityLocation: z
    .looseObject({
      city: z.string().optional(),
      stateProvince: z.string().optional(),
      postalCode: z.string().optional(),
      country: z.string().optional(),
    })
    .optional(),
  activityStatus: z.looseObject({
    type: z.string().optional(),
    code: z.string().optional(),
    description: z.string().optional(),
  }),
  scheduledDeliveryDate: date.optional(),
  actualDeliveryDate: date.optional(),
  actualDeliveryTime: time.optional(),
  gmtActivityDate: date.optional(),
  gmtActivityTime: time.optional(),
  gmtOffset: z.string().optional(),
  deliveryStartTime: time.optional(),
  deliveryEndTime: time.optional(),
});
export type UpsTrackingEvent = z.infer<typeof upsTrackingEventSchema>;

/** When the event happened: the GMT date and time when given, else local time at gmtOffset. */
export function upsEventInstant(event: UpsTrackingEvent): Date | null {
  const gmtDate = parseDateParts(event.gmtActivityDate);
  const gmtTime = parseTimeParts(event.gmtActivityTime);
  if (gmtDate && gmtTime) return instantFromParts(gmtDate, gmtTime, 0);
  const localDate = parseDateParts(event.localActivityDate);
  const localTime = parseTimeParts(event.localActivityTime);
  if (localDate && localTime) return instantFromParts(localDate, localTime, eventOffset(event));
  return null;
}

/**
 * One event as a tracking result, so a pushed event is recorded exactly as a poll's answer is
 * (TrackingPoller.applyPushed). The status reads the type and code as the Track API's do
 * (ups-status.ts: code OT is out for delivery although typed I; a D at an Access Point is a pickup).
 */
export function upsEventResult(event: UpsTrackingEvent): TrackingResult {
  const status = normalizeUpsStatus(event.activityStatus);
  const at = upsEventInstant(event);
  const offset = eventOffset(event);
  const deliveredDate = parseDateParts(event.actualDeliveryDate);
  const deliveredTime = parseTimeParts(event.actualDeliveryTime);
  // actualDeliveryDate/Time are local: without an offset they would be read as UTC, hours off, so
  // the activity's GMT instant (the same moment, on a delivery message) comes first then.
  const deliveredAt =
    status === 'delivered'
      ? deliveredDate && deliveredTime && (offset !== null || at === null)
        ? instantFromParts(deliveredDate, deliveredTime, offset)
        : at
      : null;
  const scheduled = parseDateParts(event.scheduledDeliveryDate);
  const windowEnd = parseTimeParts(event.deliveryEndTime);
  const windowStart = parseTimeParts(event.deliveryStartTime);
  return {
    trackingNumber: event.trackingNumber,
    status,
    deliveredAt,
    estimatedDeliveryAt:
      status === 'delivered' || !scheduled ? null : instantFromParts(scheduled, windowEnd ?? END_OF_DAY, offset),
    estimatedWindowStartAt:
      status === 'delivered' || !scheduled || !windowStart ? null : instantFromParts(scheduled, windowStart, offset),
    lastEventAt: at,
    description: textOrNull(event.activityStatus.description),
  };
}

/**
 * What makes two posts the same event: the package, the moment and the status. UPS may post an event
 * again (a retry after a slow answer); we record it once.
 */
export function upsEventKey(event: UpsTrackingEvent, rawBody: unknown): string {
  const at = upsEventInstant(event);
  const identity = at
    ? [event.trackingNumber, at.toISOString(), event.activityStatus.type ?? '', event.activityStatus.code ?? '']
    : [event.trackingNumber, JSON.stringify(isRecord(rawBody) ? rawBody : {})];
  return createHash('sha256').update(identity.join('\n')).digest('base64url');
}

/**
 * gmtOffset is '(-/+)HH.MM' in this spec ('-04.00'). It is optional (the spec's delivery example has
 * none); then the local and GMT activity times, when both are given, say it.
 */
function eventOffset(event: UpsTrackingEvent): number | null {
  return parseUtcOffset(event.gmtOffset?.replace('.', ':')) ?? offsetBetweenLocalAndGmt(event);
}

const QUARTER_HOUR_MINUTES = 15;
const LONGEST_OFFSET_MINUTES = 14 * 60;

/** Local minus GMT activity time, to the quarter hour (every UTC offset in use is one), else null. */
function offsetBetweenLocalAndGmt(event: UpsTrackingEvent): number | null {
  const localDate = parseDateParts(event.localActivityDate);
  const localTime = parseTimeParts(event.localActivityTime);
  const gmtDate = parseDateParts(event.gmtActivityDate);
  const gmtTime = parseTimeParts(event.gmtActivityTime);
  if (!localDate || !localTime || !gmtDate || !gmtTime) return null;
  const minutes =
    (instantFromParts(localDate, localTime, 0).getTime() - instantFromParts(gmtDate, gmtTime, 0).getTime()) / 60_000;
  const offset = Math.round(minutes / QUARTER_HOUR_MINUTES) * QUARTER_HOUR_MINUTES;
  return Math.abs(offset) <= LONGEST_OFFSET_MINUTES ? offset : null;
}
