import type { TrackingStatus } from '../../vocabulary.ts';

/**
 * UPS status → TrackingStatus. ups-tracking.openapi.yaml `Status` has `type` (the activity status
 * type, example 'X'), `code` (example 'SR') and `statusCode` (example '003'); the yaml lists no values,
 * they are in UPS's Tracking appendix (developer.ups.com/api/reference/tracking/appendix).
 */
export interface UpsStatusFields {
  type?: string | null;
  code?: string | null;
  description?: string | null;
  simplifiedTextDescription?: string | null;
}

/** Status types. */
export const UPS_STATUS_TYPES: ReadonlyMap<string, TrackingStatus> = new Map<string, TrackingStatus>([
  ['D', 'delivered'],
  ['I', 'in_transit'],
  ['P', 'in_transit'], // picked up
  ['M', 'pre_transit'], // manifest: label created, UPS does not have the package yet
  ['MV', 'failure'], // manifest voided: the label was cancelled
  ['X', 'failure'], // exception
  ['RS', 'return_to_sender'],
  ['O', 'out_for_delivery'],
  ['NA', 'unknown'], // not available
]);

/** Status codes that say more than their type, so they win over it. */
export const UPS_STATUS_CODES: ReadonlyMap<string, TrackingStatus> = new Map<string, TrackingStatus>([
  // docs/carriers/NOTES.md: out for delivery is type I with code OT.
  ['OT', 'out_for_delivery'],
  // Waiting at a UPS Access Point / UPS location for the customer (appendix codes as used by public
  // integrations; UPS may type these D, but the recipient does not have the package yet).
  ['1N', 'available_for_pickup'],
  ['1Z', 'available_for_pickup'],
  ['2C', 'available_for_pickup'],
  ['2Q', 'available_for_pickup'],
  // UPS's status code table (developer.ups.com/api/reference/tracking/api-code, as quoted in
  // UPS-API/api-documentation issue 7): ZP, status 040, type DELIVERED, "Delivered to UPS Access
  // Point™ Awaiting Customer Pickup".
  ['ZP', 'available_for_pickup'],
]);

/**
 * "Delivered to UPS Access Point, awaiting customer pickup": a D whose code is not one of the above
 * still says in words that the recipient has yet to collect it.
 */
const AWAITING_PICKUP = /\b(awaiting|ready for|available for)\b.*\bpick ?up\b/i;
/**
 * A D that names where UPS left it for the customer to collect — a UPS Access Point (The UPS Store
 * and UPS's own lockers are Access Points), e.g. `{"type":"D","code":"2W","description":"Delivered to
 * UPS Access Point™"}` — is waiting there (tracking probe, 2026-12-07). Not any "locker": a building's
 * parcel locker is the recipient's own address and UPS never scans the collection from it, so reading
 * it as a pickup would hold the video until tracking expires.
 */
const AT_PICKUP_POINT = /\b(access point|ups store|ups locker)\b/i;
/** The collection from an Access Point, which UPS types D too: the delivery to the recipient. */
const PICKED_UP = /\bpicked up\b/i;

/**
 * Without a `type` (a `currentStatus` may carry only numeric codes and words, e.g. `{"code":"011",
 * "statusCode":"011","description":"Delivered","simplifiedTextDescription":"Delivered"}`): the
 * words. Not the numeric codes: UPS publishes no table of them, and its own yaml pairs '003' with a
 * customs release in one example and 'Delivered' in another.
 */
const UPS_STATUS_WORDS: ReadonlyArray<[RegExp, TrackingStatus]> = [
  [/^delivered\b/i, 'delivered'],
  [/\bout for delivery\b/i, 'out_for_delivery'],
  [/\breturn(ed|ing)?\b.*\b(sender|shipper)\b/i, 'return_to_sender'],
  [/\b(label created|shipment ready for ups|order processed)\b/i, 'pre_transit'],
  [/\b(in transit|on the way|picked up)\b/i, 'in_transit'],
];

export function normalizeUpsStatus(status: UpsStatusFields | null | undefined): TrackingStatus {
  if (!status) return 'unknown';
  const byCode = UPS_STATUS_CODES.get(status.code?.trim().toUpperCase() ?? '');
  if (byCode) return byCode;
  const byType =
    UPS_STATUS_TYPES.get(status.type?.trim().toUpperCase() ?? '') ??
    byWords(status.simplifiedTextDescription) ??
    byWords(status.description) ??
    'unknown';
  if (byType !== 'delivered') return byType;
  const words = `${status.description ?? ''} ${status.simplifiedTextDescription ?? ''}`;
  if (AWAITING_PICKUP.test(words)) return 'available_for_pickup';
  if (PICKED_UP.test(words)) return 'delivered';
  return AT_PICKUP_POINT.test(words) ? 'available_for_pickup' : 'delivered';
}

function byWords(text: string | null | undefined): TrackingStatus | undefined {
  const trimmed = text?.trim() ?? '';
  return UPS_STATUS_WORDS.find(([pattern]) => pattern.test(trimmed))?.[1];
}

/** An activity's status and when it happened (null: UPS gave no date and time we can read). */
export interface UpsDatedStatus {
  status?: UpsStatusFields | null;
  at: Date | null;
}

/**
 * Activities newest first. The yaml says UPS lists them most recent first; that is not trusted, so the
 * dated ones are sorted by time (equal times keep UPS's order), and the undated ones follow as listed.
 */
export function newestFirst<T extends UpsDatedStatus>(activities: readonly T[]): T[] {
  const dated = activities.filter((activity) => activity.at !== null);
  const undated = activities.filter((activity) => activity.at === null);
  // Array.prototype.sort is stable, so equal times stay in UPS's order.
  dated.sort((a, b) => (b.at?.getTime() ?? 0) - (a.at?.getTime() ?? 0));
  return [...dated, ...undated];
}

/**
 * A package's status from `currentStatus` and its activities. Delivered if either `currentStatus` or
 * the newest activity says so (docs/carriers/NOTES.md) — unless a dated activity after the delivery
 * says where the package is now (a stale D in `currentStatus` beside a newer "Out For Delivery";
 * tracking probe, 2026-12-07). Otherwise the current status, or the newest activity when the current
 * status is missing or unrecognised. A delivery after a return to the shipper (RS) in the history is
 * that return's end — the recipient never got the gift — as for FedEx.
 *
 * `deliveredByDate` dates a delivery that has no dated activity (deliveryDate/deliveryTime DEL).
 */
export function upsPackageStatus(
  current: UpsStatusFields | null | undefined,
  activities: readonly UpsDatedStatus[] = [],
  deliveredByDate: Date | null = null,
): TrackingStatus {
  const ordered = newestFirst(activities);
  const fromCurrent = normalizeUpsStatus(current);
  const fromActivity = normalizeUpsStatus(ordered[0]?.status);
  if (fromCurrent !== 'delivered' && fromActivity !== 'delivered') {
    return fromCurrent !== 'unknown' ? fromCurrent : fromActivity;
  }
  const afterDelivery = statusAfterDelivery(ordered, deliveredByDate);
  if (afterDelivery) return afterDelivery;
  const returned = [current, ...activities.map((activity) => activity.status)].some(
    (status) => normalizeUpsStatus(status) === 'return_to_sender',
  );
  return returned ? 'return_to_sender' : 'delivered';
}

/**
 * The status of the newest activity dated after the delivery (its newest delivered activity, else
 * `deliveredByDate`), or null. Only an activity whose status we read: an unrecognised note after the
 * delivery does not undo it, nor does one at the delivery's own time. A delivery nothing dates is
 * taken as UPS says it (a `currentStatus` of D without a dated delivery activity or DEL date).
 */
function statusAfterDelivery(ordered: readonly UpsDatedStatus[], deliveredByDate: Date | null): TrackingStatus | null {
  const delivery = ordered.find((activity) => normalizeUpsStatus(activity.status) === 'delivered');
  const deliveredAt = delivery?.at ?? deliveredByDate;
  if (!deliveredAt) return null;
  for (const activity of ordered) {
    if (!activity.at || activity.at.getTime() <= deliveredAt.getTime()) return null;
    const status = normalizeUpsStatus(activity.status);
    if (status !== 'unknown') return status;
  }
  return null;
}
