import type { CarrierCode } from '../carrier-code.ts';
import { emptyResult } from './results.ts';
import type { TrackingResult } from './types.ts';

/**
 * What a carrier's tracking API says it takes as a number, from its published description. A number
 * outside it is refused by the carrier with a 400 — for USPS v3r2 the whole batch of up to 35, so one
 * such number (the API stores any 1–64 printable characters) stopped every other package in its batch,
 * other shops' included, from being seen delivered (probe finding). Such a number is answered here as
 * not found, with the carrier's rule as the reason, and never sent.
 */
export interface NumberLimit {
  accepts: (trackingNumber: string) => boolean;
  /** Said on the order's timeline and in the validation warning. */
  rule: string;
}

export const CARRIER_NUMBER_LIMITS: Readonly<Partial<Record<CarrierCode, NumberLimit>>> = {
  // ups-tracking.openapi.yaml, inquiryNumber: "between 7 and 34 characters in length" (else 400 TV1002).
  ups: {
    accepts: (n) => n.length >= 7 && n.length <= 34,
    rule: 'UPS tracks numbers of 7 to 34 characters; UPS cannot know this one',
  },
  // usps-tracking-v3r2.openapi.yaml, TrackingRequest.trackingNumber: "alphanumeric characters, string
  // length is between 4 and 34".
  usps: {
    accepts: (n) => /^[A-Za-z0-9]{4,34}$/.test(n),
    rule: 'USPS tracks numbers of 4 to 34 letters and digits; USPS cannot know this one',
  },
};

/**
 * `track` for the numbers the carrier takes; the others answered not found with its rule, without a
 * call. Results come back in the order asked.
 */
export async function trackWithinLimits(
  carrier: CarrierCode,
  trackingNumbers: readonly string[],
  track: (trackingNumbers: string[]) => Promise<TrackingResult[]>,
): Promise<TrackingResult[]> {
  const limit = CARRIER_NUMBER_LIMITS[carrier];
  if (!limit) return track([...trackingNumbers]);
  const taken = trackingNumbers.filter((n) => limit.accepts(n.trim()));
  const answers = taken.length > 0 ? await track(taken) : [];
  let next = 0;
  return trackingNumbers.map((n) =>
    limit.accepts(n.trim()) ? answers[next++]! : emptyResult(n, 'not_found', limit.rule),
  );
}
