import type { TrackingStatus } from '../../vocabulary.ts';

/**
 * USPS `statusCategory` → TrackingStatus. The yamls defer the values to Pub 199 Appendix G-4/G-5;
 * docs/carriers/NOTES.md lists the ones seen in practice. Keys are compared lower-case with hyphens as spaces, since
 * USPS spells some both ways ("In-Transit" / "In Transit").
 */
export const USPS_STATUS_CATEGORIES: ReadonlyMap<string, TrackingStatus> = new Map<string, TrackingStatus>([
  ['pre shipment', 'pre_transit'],
  ['pre transit', 'pre_transit'],
  ['accepted', 'in_transit'], // USPS has the item
  ['in transit', 'in_transit'],
  ['out for delivery', 'out_for_delivery'],
  ['delivered', 'delivered'],
  // A notice was left; USPS re-attempts or holds the item, so it is still on its way.
  ['delivery attempt', 'in_transit'],
  ['available for pickup', 'available_for_pickup'],
  ['alert', 'failure'],
  ['return to sender', 'return_to_sender'],
]);

/**
 * A return in USPS's status text: "Return to Sender Processed" (under "Alert"), "Returned to Sender",
 * and "Delivered, To Original Sender", which USPS files under "Delivered" although the gift went back.
 */
const RETURN_TO_SENDER = /\breturn(ed|ing)? to sender\b|\bto original sender\b/i;

/**
 * `status` is the finer text, consulted only to recognise a return, which the category alone does not
 * always show — and which must win over "Delivered": the recipient never got the gift.
 */
export function normalizeUspsStatus(statusCategory: string | null | undefined, status?: string | null): TrackingStatus {
  if (RETURN_TO_SENDER.test(status ?? '')) return 'return_to_sender';
  const key = (statusCategory ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');
  return USPS_STATUS_CATEGORIES.get(key) ?? 'unknown';
}
