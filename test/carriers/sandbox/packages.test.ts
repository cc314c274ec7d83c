import { describe, expect, it } from 'vitest';
import { PackageStore, type PackageEvent } from '../../../src/carriers/sandbox/packages.ts';

const event = (
  status: PackageEvent['status'],
  at: string,
  estimatedDeliveryAt: string | null = null,
): PackageEvent => ({
  status,
  at: new Date(at),
  estimatedDeliveryAt: estimatedDeliveryAt ? new Date(estimatedDeliveryAt) : null,
  description: null,
});

describe('sandbox package store', () => {
  it('lists events newest first, whatever order they were scripted in', () => {
    const store = new PackageStore();
    store.append('ups', '1z 999', event('in_transit', '2025-06-02T10:00:00Z'));
    store.append('ups', '1Z999', event('pre_transit', '2025-06-01T10:00:00Z'));
    const snapshot = store.snapshot('ups', '1Z999');
    expect(snapshot?.trackingNumber).toBe('1Z999');
    expect(snapshot?.latest.status).toBe('in_transit');
    expect(snapshot?.history.map((entry) => entry.status)).toEqual(['in_transit', 'pre_transit']);
  });

  it('lets the later-scripted event win a tie', () => {
    const store = new PackageStore();
    store.append('usps', '94', event('out_for_delivery', '2025-06-02T10:00:00Z'));
    store.append('usps', '94', event('delivered', '2025-06-02T10:00:00Z'));
    expect(store.snapshot('usps', '94')?.latest.status).toBe('delivered');
  });

  it('carries the newest estimate forward, and drops it once delivered', () => {
    const store = new PackageStore();
    store.append('fedex', '12', event('in_transit', '2025-06-01T10:00:00Z', '2025-06-03T20:00:00Z'));
    store.append('fedex', '12', event('out_for_delivery', '2025-06-03T08:00:00Z'));
    expect(store.snapshot('fedex', '12')?.estimatedDeliveryAt).toEqual(new Date('2025-06-03T20:00:00Z'));
    store.append('fedex', '12', event('delivered', '2025-06-03T15:00:00Z'));
    expect(store.snapshot('fedex', '12')?.estimatedDeliveryAt).toBeNull();
  });

  it('knows nothing of numbers never scripted', () => {
    expect(new PackageStore().snapshot('ups', '1Z')).toBeUndefined();
  });
});
