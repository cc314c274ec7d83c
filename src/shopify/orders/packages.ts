import type { Selectable } from 'kysely';
import type { CarrierCode } from '../../carriers/carrier-code.ts';
import type { ShopifyFulfillmentsTable } from '../../db/schema.ts';
import { normalizeTrackingNumber } from '../../carriers/tracking-number.ts';
import { fulfillmentToShipment, lineWords, type LineQuantities, type LineTitles } from './mapping.ts';

/** What we keep per Shopify fulfillment (table shopify_fulfillments). */
export interface PackageState {
  fulfillmentId: string;
  status: string | null;
  /** Null until the fulfillment itself arrived (an event may come first). */
  lineItemIds: string[] | null;
  /** How many of each line it carries; null (older rows), or a line left out: all of that line. */
  lineQuantities: LineQuantities | null;
  trackingCompany: string | null;
  trackingNumbers: string[];
  createdAt: Date | null;
  /** Shopify reported the package delivered (shipment_status or a fulfillment event). */
  deliveredAt: Date | null;
  /** Its numbers (normalised) the carrier reported delivered: a box of the gift arrived (carrierDelivered). */
  carrierDeliveredNumbers: string[];
}

/** A stored fulfillment as the package rules read it. */
export function packageState(row: Selectable<ShopifyFulfillmentsTable>): PackageState {
  return {
    fulfillmentId: row.fulfillment_id,
    status: row.status,
    lineItemIds: row.line_item_ids,
    lineQuantities: row.line_quantities,
    trackingCompany: row.tracking_company,
    trackingNumbers: row.tracking_numbers,
    createdAt: row.shopify_created_at,
    deliveredAt: row.delivered_at,
    carrierDeliveredNumbers: row.carrier_delivered_numbers,
  };
}

export interface PackageSettings {
  /** Shopify's `delivered` delivers the order (the shop can switch this off). */
  fallbackDelivered: boolean;
  carrierAliases: Record<string, string>;
}

export type ShipmentPlan =
  { kind: 'set'; carrier: CarrierCode; trackingNumber: string } | { kind: 'clear' } | { kind: 'keep' };

export interface Notice {
  type: NoticeType;
  reason: string;
}

/** The timeline types a package plan's notice is written as (each distinct reason once). */
export const NOTICE_TYPES = [
  'delivery.via_shopify',
  'delivery.awaiting_shipment',
  'delivery.blocked',
  'delivery.package_arrived',
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

export interface PackagePlan {
  shipment: ShipmentPlan;
  deliver: { at: Date; fulfillmentIds: string[] } | null;
  notice: Notice | null;
}

/** Fulfillments that never ship (or were withdrawn) carry nothing. */
const DEAD_STATUSES = new Set(['cancelled', 'error', 'failure']);

/** The package's numbers the carrier has not reported delivered yet (normalised). */
function numbersOnTheirWay(p: PackageState): string[] {
  return p.trackingNumbers.map(normalizeTrackingNumber).filter((number) => !p.carrierDeliveredNumbers.includes(number));
}

/**
 * A package has arrived when Shopify says so, or when its carrier delivered every number on it (a
 * fulfillment of several boxes has one number per box).
 */
function hasArrived(p: PackageState): boolean {
  return p.deliveredAt !== null || (p.carrierDeliveredNumbers.length > 0 && numbersOnTheirWay(p).length === 0);
}

/** The gift's packages: live fulfillments that carry any of the video order's line items. */
export function giftPackages(packages: readonly PackageState[], giftLineItemIds: readonly string[]): PackageState[] {
  return packages.filter(
    (p) => !DEAD_STATUSES.has(p.status ?? '') && p.lineItemIds?.some((id) => giftLineItemIds.includes(id)),
  );
}

/**
 * The multi-package rule (docs/shopify.md): the video goes when the last package carrying the gift
 * is delivered.
 * - Carrier tracking follows one package per order: the newest gift package not yet delivered (the
 *   one shipped last is the best guess for the one arriving last). When Shopify reports it delivered
 *   while others are still out, tracking moves to the next one.
 * - If that package's carrier is not one we track (or it has no number), carrier tracking is cleared
 *   so an earlier, trackable package cannot send the video early; Shopify's signal decides.
 * - Shopify's own `delivered` delivers the order only once every gift package is delivered, and only
 *   when the shop keeps the fallback on.
 * - A gift line item no package carries yet (a video add-on waiting for several shipped items, one of
 *   them not fulfilled yet) holds the order: carrier tracking is cleared and nothing delivers it, so
 *   the packages that did ship cannot send the video before the rest of the gift has left the store.
 *   The same holds for a line only part of which has shipped (two mugs, one box so far):
 *   `giftQuantities` says how many must ship; a line without one needs any package of it.
 */
export function planPackages(
  packages: readonly PackageState[],
  giftLineItemIds: readonly string[],
  settings: PackageSettings,
  giftQuantities: LineQuantities = {},
  /** The number the order tracks now (normalised), if any: a cancelled package stops only its own. */
  trackedNumber: string | null = null,
  /** The gift lines' titles, to name a line in a reason (lineWords). */
  titles: LineTitles | null = null,
): PackagePlan {
  if (giftLineItemIds.length === 0)
    return {
      shipment: { kind: 'keep' },
      deliver: null,
      notice: {
        type: 'delivery.blocked',
        reason:
          'the Shopify order has no item that ships, so no package can deliver it: the video goes on its send date, or when the order is marked delivered (PUT delivered: 1)',
      },
    };
  const gift = giftPackages(packages, giftLineItemIds);
  if (gift.length === 0) {
    // Nothing of the gift has shipped: what the order tracks (nothing, or a number the API set) stays.
    // But when it tracks the number of a gift package that was cancelled (a voided label, an order
    // pulled back), that number must stop: its delivery would send the video with nothing on its way.
    const withdrawn = packages.some(
      (p) =>
        DEAD_STATUSES.has(p.status ?? '') &&
        p.lineItemIds?.some((id) => giftLineItemIds.includes(id)) &&
        trackedNumber !== null &&
        p.trackingNumbers.some((number) => normalizeTrackingNumber(number) === trackedNumber),
    );
    if (!withdrawn) return { shipment: { kind: 'keep' }, deliver: null, notice: null };
    return {
      shipment: { kind: 'clear' },
      deliver: null,
      notice: {
        type: 'delivery.awaiting_shipment',
        reason:
          "the gift's fulfillment was cancelled in Shopify, so its package is no longer tracked: the video waits for a new fulfillment to be delivered, or the order to be marked delivered (PUT delivered: 1)",
      },
    };
  }
  const unshipped = unshippedLines(gift, giftLineItemIds, giftQuantities, titles);
  if (unshipped.length > 0)
    return {
      shipment: { kind: 'clear' },
      deliver: null,
      notice: {
        type: 'delivery.awaiting_shipment',
        reason: `${unshipped.length} of the gift's ${giftLineItemIds.length} items ${
          unshipped.length === 1 ? 'has' : 'have'
        } not shipped yet (${unshipped.join(', ')}): the video waits until every package of the gift is delivered, or the order is marked delivered (PUT delivered: 1)`,
      },
    };

  const outstanding = gift.filter((p) => !hasArrived(p));
  if (outstanding.length === 0) {
    // Boxes the carrier delivered: the last one's delivery delivered the order (carrierDelivered
    // lets it through), unless Shopify reported one of them delivered first.
    const toldByShopify = gift.filter((p) => p.deliveredAt !== null);
    if (toldByShopify.length < gift.length && toldByShopify.every((p) => p.carrierDeliveredNumbers.length > 0))
      return { shipment: { kind: 'keep' }, deliver: null, notice: null };
    const at = new Date(Math.max(...toldByShopify.map((p) => p.deliveredAt!.getTime())));
    if (settings.fallbackDelivered)
      return {
        shipment: { kind: 'keep' },
        deliver: { at, fulfillmentIds: gift.map((p) => p.fulfillmentId) },
        notice: null,
      };
    return {
      shipment: { kind: 'keep' },
      deliver: null,
      notice: {
        type: 'delivery.blocked',
        reason:
          "Shopify reports every package delivered, but this shop does not let Shopify's delivery status deliver orders; the order is delivered by carrier tracking or a PUT with delivered: 1",
      },
    };
  }

  const latest = [...outstanding].sort(byNewest)[0]!;
  const shipment = fulfillmentToShipment(
    {
      line_item_ids: latest.lineItemIds,
      tracking_company: latest.trackingCompany,
      // A box of it the carrier delivered is done: the next number is one still on its way.
      tracking_numbers: latest.carrierDeliveredNumbers.length > 0 ? numbersOnTheirWay(latest) : latest.trackingNumbers,
    },
    giftLineItemIds,
    settings.carrierAliases,
  );
  if (shipment?.kind === 'tracked')
    return {
      shipment: { kind: 'set', carrier: shipment.carrier, trackingNumber: shipment.trackingNumber },
      deliver: null,
      // Some of the gift arrived (its carrier's word or Shopify's): said once, so the number tracked
      // changing is explained (upgrade probe: Shopify's delivery of one box moved it without a word).
      notice: someArrived(gift)
        ? { type: 'delivery.package_arrived', reason: arrivedWords(arrivedCount(gift), gift.length) }
        : null,
    };

  const reason = shipment?.reason ?? 'the package cannot be tracked';
  return {
    shipment: { kind: 'clear' },
    deliver: null,
    notice: settings.fallbackDelivered
      ? {
          type: 'delivery.via_shopify',
          reason: `${reason}; the video is sent when Shopify reports the package delivered`,
        }
      : {
          type: 'delivery.blocked',
          reason: `${reason}, and this shop has switched off Shopify's delivery status: the order will not be delivered on its own (mark it delivered with PUT delivered: 1)`,
        },
  };
}

/** The gift's lines (or parts of a line: two mugs, one box so far) no live package carries yet. */
function unshippedLines(
  gift: readonly PackageState[],
  giftLineItemIds: readonly string[],
  giftQuantities: LineQuantities,
  titles: LineTitles | null = null,
): string[] {
  return giftLineItemIds.flatMap((id) => {
    const needed = giftQuantities[id] ?? 1;
    const shipped = gift.reduce(
      (sum, p) => sum + (p.lineItemIds?.includes(id) ? (p.lineQuantities?.[id] ?? Infinity) : 0),
      0,
    );
    if (shipped >= needed) return [];
    const line = lineWords(id, titles);
    return [shipped > 0 ? `${line} with ${shipped} of ${needed} shipped` : line];
  });
}

/**
 * Whether a box the carrier just delivered (its normalised number) ends the gift's journey, once it is
 * counted as arrived: true when no other gift package, box or line is still to ship or on its way. A
 * number no gift package carries (set through the API) is the order's only package.
 */
export function isLastOfTheGift(
  packages: readonly PackageState[],
  giftLineItemIds: readonly string[],
  giftQuantities: LineQuantities,
  deliveredNumber: string,
): boolean {
  const gift = giftPackages(packages, giftLineItemIds);
  const carrying = (p: PackageState) => p.trackingNumbers.some((n) => normalizeTrackingNumber(n) === deliveredNumber);
  if (!gift.some(carrying)) return true;
  const counted = gift.map((p) =>
    carrying(p) && !p.carrierDeliveredNumbers.includes(deliveredNumber)
      ? { ...p, carrierDeliveredNumbers: [...p.carrierDeliveredNumbers, deliveredNumber] }
      : p,
  );
  return unshippedLines(counted, giftLineItemIds, giftQuantities).length === 0 && counted.every(hasArrived);
}

function someArrived(gift: readonly PackageState[]): boolean {
  return gift.some((p) => hasArrived(p) || p.carrierDeliveredNumbers.length > 0);
}

/** "1 of the gift's 2 packages has arrived; …": a box of a package of several counts once it all has. */
function arrivedWords(arrived: number, total: number): string {
  return `${arrived} of the gift's ${total} packages ${arrived === 1 ? 'has' : 'have'} arrived, and the video goes when the last one does`;
}

/** How many of the gift's packages have arrived (Shopify's word, or the carrier's for every box). */
export function arrivedCount(gift: readonly PackageState[]): number {
  return gift.filter(hasArrived).length;
}

function byNewest(a: PackageState, b: PackageState): number {
  const at = (a.createdAt?.getTime() ?? 0) - (b.createdAt?.getTime() ?? 0);
  if (at !== 0) return -at;
  // Same second: the larger id is the later fulfillment.
  return compareIds(b.fulfillmentId, a.fulfillmentId);
}

/** Numeric comparison of Shopify ids kept as text (64-bit, beyond Number). */
export function compareIds(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Webhooks arrive out of order and more than once: a fulfillment version is applied only when its
 * `updated_at` is newer than the stored one (equal = the same version again).
 */
export function isStaleUpdate(stored: Date | null, incoming: Date): boolean {
  return stored !== null && incoming.getTime() <= stored.getTime();
}

/**
 * A fulfillment version stamped in the same second as the stored one (`updated_at` has one-second
 * precision) is a new version when it says more: tracking numbers the stored one lacks — a shipping
 * app creates the fulfillment and adds its number at once (a Shopify probe saw the number dropped as
 * "stale") — or the fulfillment cancelled. A same-second version saying less (the creation arriving
 * after its update) stays stale.
 */
export function isStaleFulfillment(
  stored: { updatedAt: Date | null; trackingNumbers: readonly string[]; status: string | null },
  incoming: { updatedAt: Date; trackingNumbers: readonly string[]; status: string | null },
): boolean {
  if (!isStaleUpdate(stored.updatedAt, incoming.updatedAt)) return false;
  if (stored.updatedAt!.getTime() !== incoming.updatedAt.getTime()) return true;
  const addsNumbers = incoming.trackingNumbers.some((number) => !stored.trackingNumbers.includes(number));
  const cancels = DEAD_STATUSES.has(incoming.status ?? '') && !DEAD_STATUSES.has(stored.status ?? '');
  return !addsNumbers && !cancels;
}
