import { z } from 'zod';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { currentShipment, destinationOf, emptyResult, textOrNull, trackingKey } from './results.ts';
import {
  instantFromParts,
  latestOf,
  parseCarrierTimestamp,
  parseDateParts,
  parseTimeParts,
  parseUtcOffset,
} from './time.ts';
import type { Destination, TrackingResult } from './types.ts';
import type { TrackingStatus } from '../../vocabulary.ts';
import { normalizeUspsStatus } from './usps-status.ts';

// Lenient readers for usps-tracking-v3.openapi.yaml `TrackingDetails` and
// usps-tracking-v3r2.openapi.yaml `TrackingDetail` / `FailureResponse`; unknown fields pass through.
const text = z.string().nullish();

/** v3 and v3r2 events share these names (v3r2 renames only fields we do not read). */
const eventSchema = z.looseObject({
  eventType: text,
  eventCode: text,
  eventTimestamp: text,
  GMTTimestamp: text,
  GMTOffset: text,
});

const sharedDetail = {
  trackingNumber: text,
  statusCategory: text,
  status: text,
  statusSummary: text,
  trackingEvents: z.array(eventSchema).nullish(),
};

export const uspsV3DetailSchema = z.looseObject({
  ...sharedDetail,
  expectedDeliveryTimeStamp: text,
  destinationCountryCode: text,
  destinationState: text,
  destinationZIP: text,
  predictedDeliveryDate: text,
  predictedDeliveryWindowStartTime: text,
  predictedDeliveryWindowEndTime: text,
  guaranteedDeliveryTimeStamp: text,
});

/** One element of a v3r2 200 array or 207 multi-status array (SuccessResponse or FailureResponse). */
export const uspsV3r2ItemSchema = z.looseObject({
  ...sharedDetail,
  statusCode: text,
  // The v3r2 yaml: destinationCountry and destinationZIPCode "no longer available as of June 2025";
  // read while they come, destinationState stays.
  destinationCountry: text,
  destinationState: text,
  destinationZIPCode: text,
  deliveryDateExpectation: z
    .looseObject({
      expectedDeliveryDate: text,
      predictedDeliveryDate: text,
      predictedDeliveryWindowStartTime: text,
      predictedDeliveryWindowEndTime: text,
      endOfDay: text,
      guaranteedDeliveryDate: text,
    })
    .nullish(),
  error: z.looseObject({ code: text, message: text }).nullish(),
});

type UspsEvent = z.infer<typeof eventSchema>;
type UspsV3r2Item = z.infer<typeof uspsV3r2ItemSchema>;

type Text = string | null | undefined;

interface EstimateSources {
  /** The predicted window: its date and wall-clock start, at the package's offset. */
  windowStart: [Text, Text];
  /** [date, wall-clock end of the window] pairs at the package's offset, best first. */
  windows: [Text, Text][];
  /** Then timestamps or bare dates (a bare date means the end of that day), best first. */
  fallbacks: Text[];
}

/** A 200 body from v3 `GET /tracking/{trackingNumber}?expand=DETAIL`. */
export function parseUspsV3Response(trackingNumber: string, body: unknown): TrackingResult {
  const parsed = uspsV3DetailSchema.safeParse(body);
  if (!parsed.success) {
    throw new CarrierUnexpectedResponseError(
      'usps',
      `USPS v3 response does not match TrackingDetails: ${z.prettifyError(parsed.error)}`,
      { status: 200 },
    );
  }
  const detail = parsed.data;
  return detailResult(
    trackingNumber,
    detail.statusCategory,
    detail.status,
    detail.statusSummary,
    detail.trackingEvents ?? [],
    {
      windowStart: [detail.predictedDeliveryDate, detail.predictedDeliveryWindowStartTime],
      windows: [[detail.predictedDeliveryDate, detail.predictedDeliveryWindowEndTime]],
      fallbacks: [detail.expectedDeliveryTimeStamp, detail.predictedDeliveryDate, detail.guaranteedDeliveryTimeStamp],
    },
    destinationOf({
      countryCode: detail.destinationCountryCode,
      state: detail.destinationState,
      postalCode: detail.destinationZIP,
    }),
  );
}

/**
 * A 200 (`TrackingDetails`, all found) or 207 (`MultiStatusResponse`) body from v3r2
 * `POST /tracking` → one result per requested number, in order. Failure items carry statusCode "404"
 * for an unknown number (the FailureResponse default); 400 means USPS rejects the number as not one of
 * its own, which is the same answer for us.
 */
export function parseUspsV3r2Response(trackingNumbers: readonly string[], body: unknown): TrackingResult[] {
  const parsed = z.array(z.unknown()).safeParse(body);
  if (!parsed.success) {
    throw new CarrierUnexpectedResponseError(
      'usps',
      `USPS v3r2 response is not an array of TrackingDetail: ${z.prettifyError(parsed.error)}`,
    );
  }
  // Item by item: one item USPS wrote oddly (a number where the yaml has a string) must not keep the
  // other packages of the batch, a delivery among them, from being read (tracking probe). An item that
  // cannot be read answers nothing for its number, which the poller takes as a failed look.
  const items = parsed.data.flatMap((raw) => {
    const item = uspsV3r2ItemSchema.safeParse(raw);
    return item.success ? [item.data] : [];
  });
  if (items.length === 0 && parsed.data.length > 0) {
    const first = uspsV3r2ItemSchema.safeParse(parsed.data[0]);
    throw new CarrierUnexpectedResponseError(
      'usps',
      `USPS v3r2 response has no item we can read: ${first.success ? '' : z.prettifyError(first.error)}`,
    );
  }
  const byNumber = new Map<string, UspsV3r2Item[]>();
  for (const item of items) {
    // A lone item without a number can only be the answer for a lone request.
    const number = item.trackingNumber ?? (trackingNumbers.length === 1 ? trackingNumbers[0] : undefined);
    if (number === undefined) continue;
    const key = trackingKey(number);
    byNumber.set(key, [...(byNumber.get(key) ?? []), item]);
  }
  return trackingNumbers.map((trackingNumber) =>
    itemsResult(trackingNumber, byNumber.get(trackingKey(trackingNumber)) ?? []),
  );
}

function itemsResult(trackingNumber: string, items: UspsV3r2Item[]): TrackingResult {
  const successes = items.filter((item) => (item.statusCode ?? '200').startsWith('2') && !item.error);
  if (successes.length === 0) {
    const failure = items[0];
    if (!failure) return emptyResult(trackingNumber, 'unknown');
    const code = failure.statusCode ?? failure.error?.code ?? '';
    const status = code === '404' || code === '400' ? 'not_found' : 'unknown';
    return emptyResult(trackingNumber, status, textOrNull(failure.error?.message));
  }
  // Several items for one number: the number was reused (uniqueTrackingID tells them apart).
  const results = successes.map((item) => {
    const expectation = item.deliveryDateExpectation;
    return detailResult(
      trackingNumber,
      item.statusCategory,
      item.status,
      item.statusSummary,
      item.trackingEvents ?? [],
      {
        windowStart: [expectation?.predictedDeliveryDate, expectation?.predictedDeliveryWindowStartTime],
        windows: [
          [expectation?.predictedDeliveryDate, expectation?.predictedDeliveryWindowEndTime],
          // endOfDay: "the estimated timeframe by when the carrier will attempt to deliver" (v3r2 yaml).
          [expectation?.expectedDeliveryDate, expectation?.endOfDay],
        ],
        fallbacks: [
          expectation?.predictedDeliveryDate,
          expectation?.expectedDeliveryDate,
          expectation?.guaranteedDeliveryDate,
        ],
      },
      destinationOf({
        countryCode: item.destinationCountry,
        state: item.destinationState,
        postalCode: item.destinationZIPCode,
      }),
    );
  });
  return currentShipment(results);
}

function detailResult(
  trackingNumber: string,
  statusCategory: string | null | undefined,
  statusText: string | null | undefined,
  statusSummary: string | null | undefined,
  events: UspsEvent[],
  estimate: EstimateSources,
  destination: Destination | null,
): TrackingResult {
  const status = returnedThenDelivered(normalizeUspsStatus(statusCategory, statusText), events);
  // Events are in reverse chronological order (both yamls); the newest one's offset is the package's.
  const offset = events.map((event) => parseUtcOffset(event.GMTOffset)).find((candidate) => candidate !== null) ?? null;
  const lastEventAt = latestOf(events.map(eventInstant));
  let deliveredAt: Date | null = null;
  if (status === 'delivered') {
    // Pub 199 event code 01 is "Delivered".
    const delivery = events.find((event) => event.eventCode === '01' || /^delivered\b/i.test(event.eventType ?? ''));
    deliveredAt = (delivery && eventInstant(delivery)) ?? lastEventAt;
  }
  return {
    trackingNumber,
    status,
    deliveredAt,
    estimatedDeliveryAt: status === 'delivered' ? null : estimatedDelivery(estimate, offset),
    estimatedWindowStartAt: status === 'delivered' ? null : atOffset(estimate.windowStart, offset),
    lastEventAt,
    description: textOrNull(statusText) ?? textOrNull(statusSummary),
    destination,
  };
}

/**
 * A "Delivered" after a "Return to Sender" event is the package delivered back to its sender: the
 * recipient never got the gift, so it is a return (as for FedEx and UPS), not a delivery.
 */
function returnedThenDelivered(status: TrackingStatus, events: readonly UspsEvent[]): TrackingStatus {
  if (status !== 'delivered') return status;
  return events.some((event) => normalizeUspsStatus(null, event.eventType) === 'return_to_sender')
    ? 'return_to_sender'
    : status;
}

/** GMTTimestamp is UTC; eventTimestamp is local, with or without an offset, so GMTOffset completes it. */
export function eventInstant(event: UspsEvent): Date | null {
  return (
    parseCarrierTimestamp(event.GMTTimestamp, 0) ??
    parseCarrierTimestamp(event.eventTimestamp, parseUtcOffset(event.GMTOffset))
  );
}

function estimatedDelivery(estimate: EstimateSources, offset: number | null): Date | null {
  for (const window of estimate.windows) {
    const end = atOffset(window, offset);
    if (end) return end;
  }
  for (const candidate of estimate.fallbacks) {
    const instant = parseCarrierTimestamp(candidate, offset);
    if (instant) return instant;
  }
  return null;
}

/** A [date, wall-clock time] pair at the package's offset, or null unless both parse. */
function atOffset([dateText, timeText]: [Text, Text], offset: number | null): Date | null {
  const date = parseDateParts(dateText);
  const time = parseTimeParts(timeText);
  return date && time ? instantFromParts(date, time, offset) : null;
}
