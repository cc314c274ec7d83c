import { CARRIER_NUMBER_LIMITS } from './clients/number-limits.ts';
import type { Logger } from '../logger.ts';
import type { CarrierLook } from '../orders/order-events.ts';
import type { TrackingNumberVerifier, Verification } from '../orders/service.ts';
import type { CarrierCode } from './carrier-code.ts';
import { CarrierQuotaError, CarrierRateLimitedError, CarrierUnexpectedResponseError } from './clients/errors.ts';
import type { CarrierClient, TrackingResult } from './clients/types.ts';
import { carrierDisplayName, validateTrackingNumber } from './tracking-number.ts';
import { destinationTimeZone } from '../tracking/destination-time-zone.ts';

/**
 * Spec §4 rule 1: "the service validates the tracking number with the carrier". We ask the carrier,
 * but never wait longer than `timeoutMs`: a slow or failing carrier gives a warning, not a slow PUT.
 * The carrier's word beats the format check (a number it knows is valid, whatever its shape); when
 * the carrier cannot answer, the format check decides the wording. Rule 2: whatever happens the
 * number is stored and tracked — this only chooses the warning. The call spends from the carrier's
 * shared request budget (./quota.ts); when that is spent the carrier is not asked at all.
 * The carrier's answer also goes back as `look`: tracking takes it as the package's first poll.
 */
export function carrierVerifier(
  clients: Record<CarrierCode, CarrierClient>,
  options: { timeoutMs: number; logger: Logger; now?: () => Date },
): TrackingNumberVerifier {
  const now = options.now ?? (() => new Date());
  return {
    async verify(carrier, trackingNumber) {
      const warning = (message: string): Verification => ({ warning: { type: 'request', message }, look: null });
      const name = carrierDisplayName(carrier);
      const format = validateTrackingNumber(carrier, trackingNumber);
      try {
        const askedAt = now();
        const [result] = await clients[carrier].track([trackingNumber], {
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        const look = result ? carrierLook(result, askedAt) : null;
        if (result && result.status !== 'not_found') return { warning: null, look };
        // A number outside what the carrier's API takes is not sent to it (number-limits.ts): the
        // warning must not say the carrier was asked (API probe).
        const limit = CARRIER_NUMBER_LIMITS[carrier];
        const unaskable = limit !== undefined && !limit.accepts(trackingNumber);
        return {
          warning: {
            type: 'request',
            message: unaskable
              ? `${format.valid ? '' : `${format.reason} `}${limit.rule}, so it is not asked. It is stored; correct it if it was mistyped.`
              : format.valid
                ? `The tracking number "${trackingNumber}" is not yet in ${name}'s system. It is stored and will be tracked; new labels often appear within a day.`
                : `${format.reason} ${name} does not know it either. It is stored and will be tracked anyway.`,
          },
          look,
        };
      } catch (error) {
        // Our budget for the carrier said no: answer at once with the format check, the carrier unasked.
        if (error instanceof CarrierQuotaError) {
          const why =
            error.reason === 'spent'
              ? `our request budget for ${name} is used up for now, or ${name} asked us to wait`
              : `our ${name} request budget could not be checked just now`;
          const notAsked = `${name} was not asked: ${why}. It is stored and will be checked by the next poll.`;
          return warning(
            format.valid
              ? `The tracking number "${trackingNumber}" looks right, but ${notAsked}`
              : `${format.reason} ${notAsked}`,
          );
        }
        options.logger.warn({ carrier, err: error }, 'carrier validation failed; answering with a warning');
        const cannot = cannotAsk(name, error);
        return warning(
          format.valid
            ? `${cannot} validate the tracking number "${trackingNumber}" yet. It is stored and will be tracked.`
            : `${format.reason} ${cannot} confirm it. It is stored and will be tracked anyway.`,
        );
      }
    },
  };
}

/** A carrier's answer as the shipment event carries it (JSON-safe). */
export function carrierLook(result: TrackingResult, at: Date): CarrierLook {
  const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;
  return {
    at: at.toISOString(),
    status: result.status,
    description: result.description,
    delivered_at: iso(result.deliveredAt),
    estimated_delivery_at: iso(result.estimatedDeliveryAt),
    estimated_window_start_at: iso(result.estimatedWindowStartAt),
    last_event_at: iso(result.lastEventAt),
    destination_time_zone: result.destination ? destinationTimeZone(result.destination) : null,
  };
}

/**
 * Why the carrier could not confirm the number, as it happened, leading into "validate …" or "confirm
 * it": it asked us to wait, it said something we could not read, or it did not answer (tracking
 * probe: all three were "could not be reached").
 */
function cannotAsk(name: string, error: unknown): string {
  if (error instanceof CarrierRateLimitedError) return `${name} asked Doorstep to wait (rate limited), so it could not`;
  if (error instanceof CarrierUnexpectedResponseError)
    return `${name}'s answer could not be read, so Doorstep could not`;
  return `${name} could not be reached, so Doorstep could not`;
}
