import type { TrackingResult } from '../../../src/carriers/clients/types.ts';

/**
 * The whole result every client gives for a number its carrier does not know: not_found, every
 * time, estimate and destination empty, only the carrier's own message kept. Written out here, not
 * taken from src's `emptyResult`, so the tests state what they expect independently of the code under test.
 */
export function notFoundResult(trackingNumber: string, description: string): TrackingResult {
  return {
    trackingNumber,
    status: 'not_found',
    deliveredAt: null,
    estimatedDeliveryAt: null,
    estimatedWindowStartAt: null,
    lastEventAt: null,
    description,
    destination: null,
  };
}
