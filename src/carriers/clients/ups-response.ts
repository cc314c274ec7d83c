import { z } from 'zod';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { destinationOf, emptyResult, textOrNull, trackingKey } from './results.ts';
import { END_OF_DAY, instantFromParts, parseDateParts, parseTimeParts, parseUtcOffset } from './time.ts';
import type { TrackingResult } from './types.ts';
import { newestFirst, normalizeUpsStatus, upsPackageStatus } from './ups-status.ts';

// The parts of ups-tracking.openapi.yaml `TrackApiResponse` we read. Lenient on purpose: every field
// is optional in the yaml, UPS sends nulls for empty ones, and unknown fields pass through.
const text = z.string().nullish();

const statusSchema = z.looseObject({
  type: text,
  code: text,
  description: text,
  simplifiedTextDescription: text,
  statusCode: text,
});

const activitySchema = z.looseObject({
  date: text,
  time: text,
  gmtDate: text,
  gmtTime: text,
  gmtOffset: text,
  status: statusSchema.nullish(),
});

const packageSchema = z.looseObject({
  trackingNumber: text,
  currentStatus: statusSchema.nullish(),
  activity: z.array(activitySchema).nullish(),
  deliveryDate: z.array(z.looseObject({ date: text, type: text })).nullish(),
  deliveryTime: z.looseObject({ startTime: text, endTime: text, type: text }).nullish(),
  packageAddress: z
    .array(
      z.looseObject({
        type: text,
        address: z.looseObject({ countryCode: text, stateProvince: text, postalCode: text }).nullish(),
      }),
    )
    .nullish(),
});

const shipmentSchema = z.looseObject({
  inquiryNumber: text,
  package: z.array(packageSchema).nullish(),
  warnings: z.array(z.looseObject({ code: text, message: text })).nullish(),
});

export const upsTrackResponseSchema = z.looseObject({
  trackResponse: z.looseObject({ shipment: z.array(shipmentSchema).nullish() }),
});

type UpsActivity = z.infer<typeof activitySchema>;
type UpsPackage = z.infer<typeof packageSchema>;

/** docs/carriers/NOTES.md: an unknown number usually comes back as 200 with this warning on shipment[0]. */
export const UPS_NOT_FOUND_WARNING = 'TW0001';

/** deliveryTime types whose endTime bounds the expected delivery (yaml `DeliveryTime.type`). */
const WINDOW_END_TYPES = new Set(['EDW', 'CDW', 'IDW', 'CMT', 'EOD']);
/** The window types, the only ones with a startTime (yaml `DeliveryTime.startTime`). */
const WINDOW_START_TYPES = new Set(['EDW', 'CDW', 'IDW']);

/** A 200 body from `GET /api/track/v1/details/{inquiryNumber}` → the result for that number. */
export function parseUpsTrackResponse(trackingNumber: string, body: unknown): TrackingResult {
  const parsed = upsTrackResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new CarrierUnexpectedResponseError(
      'ups',
      `UPS track response does not match TrackApiResponse: ${z.prettifyError(parsed.error)}`,
      { status: 200 },
    );
  }
  const key = trackingKey(trackingNumber);
  const shipments = parsed.data.trackResponse.shipment ?? [];
  const shipment = shipments.find((candidate) => trackingKey(candidate.inquiryNumber ?? '') === key) ?? shipments[0];
  const packages = shipment?.package ?? [];
  const pkg = packages.find((candidate) => trackingKey(candidate.trackingNumber ?? '') === key) ?? packages[0];
  if (!shipment || !pkg) {
    // TW0001 "Tracking Information Not Found" is the usual reason; any shipment without packages
    // means UPS has nothing to say about this number.
    const warning =
      shipment?.warnings?.find((candidate) => candidate.code === UPS_NOT_FOUND_WARNING) ?? shipment?.warnings?.[0];
    return emptyResult(trackingNumber, 'not_found', textOrNull(warning?.message));
  }
  return packageResult(trackingNumber, pkg);
}

function packageResult(trackingNumber: string, pkg: UpsPackage): TrackingResult {
  const activities = pkg.activity ?? [];
  // deliveryDate/deliveryTime are wall-clock without an offset; the activities carry the package's.
  const offset =
    activities.map((activity) => parseUtcOffset(activity.gmtOffset)).find((candidate) => candidate !== null) ?? null;
  const ordered = newestFirst(
    activities.map((activity) => ({ activity, status: activity.status, at: activityInstant(activity) })),
  );
  const latest = ordered[0];
  const deliveredByDate = deliveredFromDeliveryDate(pkg, offset);
  const status = upsPackageStatus(pkg.currentStatus, ordered, deliveredByDate);
  const lastEventAt = latest?.at ?? null;

  let deliveredAt: Date | null = null;
  if (status === 'delivered') {
    // The newest delivery activity, whatever order UPS lists them in.
    const delivery = ordered.find((candidate) => normalizeUpsStatus(candidate.status) === 'delivered');
    deliveredAt = delivery?.at ?? deliveredByDate ?? lastEventAt ?? endOfActivityDay(delivery?.activity, offset);
  }

  // A currentStatus that a newer activity overrules (upsPackageStatus) would describe the old state.
  const currentIsStale = normalizeUpsStatus(pkg.currentStatus) !== status;
  return {
    trackingNumber,
    status,
    deliveredAt,
    estimatedDeliveryAt: status === 'delivered' ? null : estimatedDelivery(pkg, offset, 'end'),
    estimatedWindowStartAt: status === 'delivered' ? null : estimatedDelivery(pkg, offset, 'start'),
    lastEventAt,
    description:
      (currentIsStale ? null : textOrNull(pkg.currentStatus?.description)) ??
      textOrNull(latest?.status?.description) ??
      textOrNull(pkg.currentStatus?.description) ??
      textOrNull(pkg.currentStatus?.simplifiedTextDescription),
    destination: upsDestination(pkg),
  };
}

/** `packageAddress` entries are typed ORIGIN or DESTINATION (yaml `PackageAddress.type`). */
function upsDestination(pkg: UpsPackage): TrackingResult['destination'] {
  const address = pkg.packageAddress?.find((entry) => entry.type?.trim().toUpperCase() === 'DESTINATION')?.address;
  return address
    ? destinationOf({ countryCode: address.countryCode, state: address.stateProvince, postalCode: address.postalCode })
    : null;
}

/**
 * An activity's instant. gmtDate/gmtTime are UTC (gmtTime may be unpadded, '74700' in the yaml);
 * otherwise the local date/time at gmtOffset.
 */
export function activityInstant(activity: UpsActivity): Date | null {
  const gmtDate = parseDateParts(activity.gmtDate);
  const gmtTime = parseTimeParts(activity.gmtTime);
  if (gmtDate && gmtTime) return instantFromParts(gmtDate, gmtTime, 0);
  const date = parseDateParts(activity.date);
  const time = parseTimeParts(activity.time);
  if (date && time) return instantFromParts(date, time, parseUtcOffset(activity.gmtOffset));
  return null;
}

/**
 * A delivery activity with a date and no time: the end of that day, as FedEx's date-only ACTUAL_DELIVERY
 * is read (a delivery today is then capped at now when recorded), rather than the moment we polled.
 */
function endOfActivityDay(activity: UpsActivity | undefined, offset: number | null): Date | null {
  const date = parseDateParts(activity?.date ?? activity?.gmtDate);
  return date ? instantFromParts(date, END_OF_DAY, offset) : null;
}

/** deliveryDate type DEL with deliveryTime type DEL (its endTime is the delivered time, per the yaml). */
function deliveredFromDeliveryDate(pkg: UpsPackage, offset: number | null): Date | null {
  const date = parseDateParts(pkg.deliveryDate?.find((candidate) => candidate.type === 'DEL')?.date);
  if (!date) return null;
  const time = pkg.deliveryTime?.type === 'DEL' ? parseTimeParts(pkg.deliveryTime.endTime) : null;
  return instantFromParts(date, time ?? END_OF_DAY, offset);
}

/**
 * Rescheduled (RDD) beats scheduled (SDD). The end: the window's endTime, else the end of that day.
 * The start: the window's startTime, only when UPS gives a window.
 */
function estimatedDelivery(pkg: UpsPackage, offset: number | null, edge: 'start' | 'end'): Date | null {
  const dates = pkg.deliveryDate ?? [];
  const scheduled =
    dates.find((candidate) => candidate.type === 'RDD') ?? dates.find((candidate) => candidate.type === 'SDD');
  const date = parseDateParts(scheduled?.date);
  if (!date) return null;
  const type = pkg.deliveryTime?.type ?? '';
  if (edge === 'start') {
    const start = WINDOW_START_TYPES.has(type) ? parseTimeParts(pkg.deliveryTime?.startTime) : null;
    return start ? instantFromParts(date, start, offset) : null;
  }
  const end = WINDOW_END_TYPES.has(type) ? parseTimeParts(pkg.deliveryTime?.endTime) : null;
  return instantFromParts(date, end ?? END_OF_DAY, offset);
}
