import type { Destination, TrackingResult } from './types.ts';
import type { TrackingStatus } from '../../vocabulary.ts';

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
