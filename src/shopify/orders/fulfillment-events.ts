import type { ObservedStatus, TrackingObservation } from '../../tracking/observation.ts';

/**
 * Shopify's fulfillment event statuses (FulfillmentEventStatus, lower-cased in the REST webhook) as the
 * tracking schedule's observations (docs/tracking.md "Free signals"). `delivered` is not here: it
 * takes the package rules' path (order-sync.ts), as it always did.
 * - `in_transit`, `carrier_picked_up`: in transit. `attempted_delivery`: in transit too, as USPS words
 *   its "delivery attempt" (carriers/clients/usps-status.ts) — the carrier tries again or holds it.
 * - `out_for_delivery`: out for delivery. `ready_for_pickup`: available for pickup.
 * - `label_printed`, `label_purchased`, `confirmed` (nothing scanned yet: no news for the schedule),
 *   `delayed` (no new status; its estimate is the news), `failure` ("the fulfillment request failed":
 *   not a carrier exception), `picked_up` (collected: delivered is Shopify's `delivered` or the
 *   carrier's word, never a guess): their estimate only.
 * Any other status is not Shopify's documented vocabulary: ignored, estimate and all.
 */
const STATUSES: Record<string, ObservedStatus | null> = {
  in_transit: 'in_transit',
  carrier_picked_up: 'in_transit',
  attempted_delivery: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  ready_for_pickup: 'available_for_pickup',
  label_printed: null,
  label_purchased: null,
  confirmed: null,
  delayed: null,
  failure: null,
  picked_up: null,
};

/** True for the documented statuses other than `delivered` (which order-sync handles on its own). */
export function isObservableEventStatus(status: string): boolean {
  return Object.hasOwn(STATUSES, status);
}

/**
 * The observation a fulfillment event (or the newest one stored for a fulfillment) makes, or null
 * when it says nothing the schedule uses.
 */
export function eventObservation(event: {
  status: string | null;
  at: Date;
  estimatedDeliveryAt: Date | null;
}): TrackingObservation | null {
  const status = event.status !== null && Object.hasOwn(STATUSES, event.status) ? STATUSES[event.status]! : null;
  const estimate =
    event.estimatedDeliveryAt && !Number.isNaN(event.estimatedDeliveryAt.getTime()) ? event.estimatedDeliveryAt : null;
  if (status === null && estimate === null) return null;
  return { source: 'shopify', at: event.at, status, estimatedDeliveryAt: estimate };
}

/** A timestamp Shopify sent, or null when absent or not one (an estimate we cannot read is no estimate). */
export function shopifyTime(value: string | null | undefined): Date | null {
  if (!value) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}
