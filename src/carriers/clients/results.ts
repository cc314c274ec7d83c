import type { TrackingResult } from './types.ts';
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
  };
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
