import { describe, expect, it } from 'vitest';
import type { TrackingResult } from '../../src/carriers/clients/types.ts';
import { asThisOrdersPackage } from '../../src/tracking/earlier-shipment.ts';

const placedAt = new Date('2026-11-20T12:00:00Z');
const delivered = (at: string): TrackingResult => ({
  trackingNumber: '1Z999AA10123456784',
  status: 'delivered',
  deliveredAt: new Date(at),
  estimatedDeliveryAt: null,
  estimatedWindowStartAt: null,
  lastEventAt: new Date(at),
  description: 'Delivered',
});

describe('asThisOrdersPackage (pure)', () => {
  it('reads a delivery dated a day or more before the order as this package not scanned yet', () => {
    const read = asThisOrdersPackage(delivered('2026-11-19T11:59:59Z'), placedAt);
    expect(read).toMatchObject({ status: 'not_found', deliveredAt: null, lastEventAt: null });
    expect(read.description).toContain('dated 2026-11-19, before this order was placed');
  });

  it('takes a delivery within the day before the order at its word (a carrier time read in the wrong zone, a skewed clock)', () => {
    const answer = delivered('2026-11-19T12:00:01Z');
    expect(asThisOrdersPackage(answer, placedAt)).toBe(answer);
  });

  it('leaves everything else alone: later deliveries, other statuses, rows from before the order time was kept', () => {
    const later = delivered('2026-11-22T15:00:00Z');
    expect(asThisOrdersPackage(later, placedAt)).toBe(later);
    const old = delivered('2020-01-01T00:00:00Z');
    expect(asThisOrdersPackage(old, null)).toBe(old);
    const moving = { ...old, status: 'in_transit' as const, deliveredAt: null };
    expect(asThisOrdersPackage(moving, placedAt)).toBe(moving);
  });
});
