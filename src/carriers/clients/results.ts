import type { Destination, TrackingResult } from './types.ts';
import type { TrackingStatus } from '../../vocabulary.ts';
import { latestOf } from './time.ts';

/** How carriers echo numbers back can differ in case and spacing from how we sent them. */
export function trackingKey(trackingNumber: string): string {
  return trackingNumber.replace(/\s+/g, '').toUpperCase();
}

export function emptyResult(
  trackingNumber: string,
  status: TrackingStatus,
  description: string | null = null,
): TrackingResult {
  return {
    trackingNumber,
    status,
    deliveredAt: null,
    estimatedDeliveryAt: null,
    estimatedWindowStartAt: null,
    lastEventAt: null,
    description,
    destination: null,
  };
}

/** The parts of a destination address tracking uses, or null when the carrier gave none of them. */
export function destinationOf(parts: {
  countryCode: string | null | undefined;
  state: string | null | undefined;
  postalCode: string | null | undefined;
}): Destination | null {
  const destination = {
    countryCode: textOrNull(parts.countryCode),
    state: textOrNull(parts.state),
    postalCode: textOrNull(parts.postalCode),
  };
  return destination.countryCode || destination.state || destination.postalCode ? destination : null;
}

/** Splits `items` into consecutive chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Trimmed text, or null for missing/blank. */
export function textOrNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * Of several shipments a carrier reports under one number (a reused number: FedEx "duplicate
 * shipments", USPS items told apart by uniqueTrackingID), the one in flight now. Dated shipments
 * compete by their latest date (scan, delivery or estimate). A shipment with no date at all is a
 * label not yet scanned: after a finished journey (delivered or returned) it is the number's new use,
 * and wins — else an old delivery would send the gift's video before the gift has shipped; beside a
 * journey still moving it may be an old label never shipped, and loses.
 */
export function currentShipment(shipments: readonly TrackingResult[]): TrackingResult {
  const datedAt = (shipment: TrackingResult) =>
    latestOf([shipment.lastEventAt, shipment.deliveredAt, shipment.estimatedDeliveryAt])?.getTime() ?? null;
  const dated = shipments.filter((shipment) => datedAt(shipment) !== null);
  const newestDated = dated.reduce<TrackingResult | null>(
    (best, candidate) => (best === null || datedAt(candidate)! > datedAt(best)! ? candidate : best),
    null,
  );
  const newLabel = shipments.find((shipment) => datedAt(shipment) === null && !FINISHED.has(shipment.status));
  if (newestDated === null) return newLabel ?? shipments[0]!;
  return FINISHED.has(newestDated.status) && newLabel ? newLabel : newestDated;
}

const FINISHED: ReadonlySet<TrackingStatus> = new Set(['delivered', 'return_to_sender']);
