import type { TrackingNumberVerifier } from '../orders/service.ts';
import { validateTrackingNumber } from './tracking-number.ts';

/**
 * Checks a tracking number against its carrier's published format and check digit. A failure is
 * a warning (spec §4 rule 2): the number is still stored and tracked.
 */
export const formatVerifier: TrackingNumberVerifier = {
  async verify(carrier, trackingNumber) {
    const result = validateTrackingNumber(carrier, trackingNumber);
    return { warning: result.valid ? null : { type: 'request', message: result.reason }, look: null };
  },
};
