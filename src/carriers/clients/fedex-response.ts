import { z } from 'zod';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { normalizeFedexStatus } from './fedex-status.ts';
import { currentShipment, destinationOf, emptyResult, textOrNull, trackingKey } from './results.ts';
import { latestOf, parseCarrierTimestamp, utcOffsetOf } from './time.ts';
import type { TrackingResult } from './types.ts';
import type { TrackingStatus } from '../../vocabulary.ts';

// The parts of fedex-track.openapi.json `TrkcResponseVO_TrackingNumber` we read; nothing in it is
// required by the spec, unknown fields pass through.
const text = z.string().nullish();

const timeWindowSchema = z.looseObject({
  type: text,
  window: z.looseObject({ begins: text, ends: text }).nullish(),
});

/** AddressVO1: only the parts that place the destination, never the street. */
const addressSchema = z.looseObject({ countryCode: text, stateOrProvinceCode: text, postalCode: text });

const trackResultSchema = z.looseObject({
  trackingNumberInfo: z.looseObject({ trackingNumber: text }).nullish(),
  latestStatusDetail: z
    .looseObject({ code: text, derivedCode: text, statusByLocale: text, description: text })
    .nullish(),
  dateAndTimes: z.array(z.looseObject({ type: text, dateTime: text })).nullish(),
  scanEvents: z
    .array(z.looseObject({ date: text, eventType: text, derivedStatusCode: text, eventDescription: text }))
    .nullish(),
  estimatedDeliveryTimeWindow: timeWindowSchema.nullish(),
  lastUpdatedDestinationAddress: addressSchema.nullish(),
  recipientInformation: z.looseObject({ address: addressSchema.nullish() }).nullish(),
  error: z.looseObject({ code: text, message: text }).nullish(),
});

export const fedexTrackResponseSchema = z.looseObject({
  transactionId: text,
  output: z.looseObject({
    completeTrackResults: z
      .array(z.looseObject({ trackingNumber: text, trackResults: z.array(trackResultSchema).nullish() }))
      .nullish(),
  }),
});

type FedexTrackResult = z.infer<typeof trackResultSchema>;

/** docs/carriers/NOTES.md: an unknown number is this per-result error inside a 200. */
export const FEDEX_NOT_FOUND_ERROR = 'TRACKING.TRACKINGNUMBER.NOTFOUND';

/** Per-number errors that mean "FedEx does not know this number" rather than a failure to look. */
const NOT_FOUND_ERRORS = new Set([FEDEX_NOT_FOUND_ERROR, 'TRACKING.TRACKINGNUMBER.INVALID']);

/** A 200 body from `POST /track/v1/trackingnumbers` → one result per requested number, in order. */
export function parseFedexTrackResponse(trackingNumbers: readonly string[], body: unknown): TrackingResult[] {
  const parsed = fedexTrackResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new CarrierUnexpectedResponseError(
      'fedex',
      `FedEx track response does not match TrkcResponseVO: ${z.prettifyError(parsed.error)}`,
      { status: 200 },
    );
  }
  const byNumber = new Map<string, FedexTrackResult[]>();
  for (const complete of parsed.data.output.completeTrackResults ?? []) {
    for (const result of complete.trackResults ?? []) {
      const key = trackingKey(complete.trackingNumber ?? result.trackingNumberInfo?.trackingNumber ?? '');
      byNumber.set(key, [...(byNumber.get(key) ?? []), result]);
    }
  }
  return trackingNumbers.map((trackingNumber) => {
    const results = byNumber.get(trackingKey(trackingNumber));
    // FedEx answered the batch but said nothing about this number: not "not found", just no answer.
    if (!results) return emptyResult(trackingNumber, 'unknown');
    return resultFor(trackingNumber, results);
  });
}

/**
 * FedEx returns several trackResults for one number when the number was reused (TrackResult
 * description: "In case of duplicate shipments, multiple track details will be populated"):
 * currentShipment picks the one in flight.
 */
function resultFor(trackingNumber: string, results: FedexTrackResult[]): TrackingResult {
  const found = results.filter((result) => !result.error);
  if (found.length === 0) {
    const error = results[0]?.error;
    const status = NOT_FOUND_ERRORS.has(error?.code ?? '') ? 'not_found' : 'unknown';
    return emptyResult(trackingNumber, status, textOrNull(error?.message));
  }
  return currentShipment(found.map((result) => convert(trackingNumber, result)));
}

function convert(trackingNumber: string, result: FedexTrackResult): TrackingResult {
  const detail = result.latestStatusDetail;
  const scans = result.scanEvents ?? [];
  const status = returnedThenDelivered(normalizeFedexStatus(detail?.code, detail?.derivedCode), scans);
  const dates = result.dateAndTimes ?? [];
  // dateAndTimes may lack an offset (spec example '2007-09-27T00:00:00'); scan dates carry the package's.
  const offset = scans.map((scan) => utcOffsetOf(scan.date)).find((candidate) => candidate !== null) ?? null;
  const at = (value: string | null | undefined): Date | null => parseCarrierTimestamp(value, offset);
  const dated = (type: string): Date | null => at(dates.find((candidate) => candidate.type === type)?.dateTime);

  const lastEventAt =
    latestOf(scans.map((scan) => at(scan.date))) ??
    latestOf(['ACTUAL_DELIVERY', 'ACTUAL_PICKUP', 'ACTUAL_TENDER', 'SHIP'].map(dated));

  let deliveredAt: Date | null = null;
  if (status === 'delivered') {
    const deliveryScan = scans.find((scan) => scan.eventType === 'DL' || scan.derivedStatusCode === 'DL');
    deliveredAt = dated('ACTUAL_DELIVERY') ?? at(deliveryScan?.date) ?? lastEventAt;
  }

  return {
    trackingNumber,
    status,
    deliveredAt,
    estimatedDeliveryAt:
      status === 'delivered'
        ? null
        : (at(result.estimatedDeliveryTimeWindow?.window?.ends) ?? dated('ESTIMATED_DELIVERY') ?? dated('COMMITMENT')),
    // TimeRange.begins has no offset in the spec example ('2021-10-01T08:00:00') while ends has one:
    // begins is read at the offset of ends, else of the scans.
    estimatedWindowStartAt:
      status === 'delivered'
        ? null
        : parseCarrierTimestamp(
            result.estimatedDeliveryTimeWindow?.window?.begins,
            utcOffsetOf(result.estimatedDeliveryTimeWindow?.window?.ends) ?? offset,
          ),
    lastEventAt,
    description: textOrNull(detail?.description) ?? textOrNull(detail?.statusByLocale),
    destination: fedexDestination(result),
  };
}

/**
 * A package FedEx returned to its shipper ends "delivered" — to the shipper. A return-to-shipper scan
 * (RS) in its history before that delivery means the recipient never got the gift: a return, not a
 * delivery, so no video is sent (a poll that caught it while RS already stopped; one after did not).
 */
function returnedThenDelivered(
  status: TrackingStatus,
  scans: readonly { eventType?: string | null; derivedStatusCode?: string | null }[],
): TrackingStatus {
  if (status !== 'delivered') return status;
  const returned = scans.some((scan) =>
    [scan.eventType, scan.derivedStatusCode].some((code) => code?.trim().toUpperCase() === 'RS'),
  );
  return returned ? 'return_to_sender' : status;
}

/** After a redirect `lastUpdatedDestinationAddress` is where the package now goes. */
function fedexDestination(result: FedexTrackResult): TrackingResult['destination'] {
  for (const address of [result.lastUpdatedDestinationAddress, result.recipientInformation?.address]) {
    const destination =
      address &&
      destinationOf({
        countryCode: address.countryCode,
        state: address.stateOrProvinceCode,
        postalCode: address.postalCode,
      });
    if (destination) return destination;
  }
  return null;
}
