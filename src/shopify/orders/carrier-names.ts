import { CARRIER_CODES, type CarrierCode } from '../../carriers/carrier-code.ts';
import { detectCarrier, normalizeTrackingNumber } from '../../carriers/tracking-number.ts';

/**
 * `tracking_company` is free text in practice ("UPS", "ups", "Fed Ex", "Hermes", null). Shopify's own
 * carrier list spells the three we track `UPS`, `FedEx`, `USPS` (docs/shopify-notes.md); the
 * rest are the spellings merchants and shipping apps commonly use.
 */
const BUILT_IN_ALIASES: Record<string, CarrierCode> = {
  ups: 'ups',
  'united parcel service': 'ups',
  'ups ground': 'ups',
  'ups express': 'ups',
  'ups surepost': 'ups',
  'ups ground saver': 'ups',
  'ups mail innovations': 'ups',
  fedex: 'fedex',
  'fed ex': 'fedex',
  'federal express': 'fedex',
  'fedex ground': 'fedex',
  'fedex express': 'fedex',
  'fedex home delivery': 'fedex',
  'fedex smartpost': 'fedex',
  'fedex ground economy': 'fedex',
  usps: 'usps',
  'us postal service': 'usps',
  'united states postal service': 'usps',
  'us post office': 'usps',
  'united states post office': 'usps',
  'us mail': 'usps',
  'usps priority mail': 'usps',
  'usps first class': 'usps',
  'usps ground advantage': 'usps',
};

/**
 * Carriers that deliver on their own (Shopify's carrier list and common spellings): when the store names
 * one, the tracking number's format says nothing — a Royal Mail or Deutsche Post number is a UPU S10
 * that also fits USPS, a Canada Post one fits FedEx — and asking USPS would spend the shared budget on
 * a package it will never carry. Not the consolidators whose last mile is USPS (DHL eCommerce,
 * Asendia, Passport, …): their numbers are found by format.
 */
const CARRIERS_WE_DO_NOT_TRACK = new Set(
  [
    'Royal Mail',
    'Parcelforce',
    'Evri',
    'Hermes',
    'Yodel',
    'DPD',
    'DPD UK',
    'GLS',
    'Canada Post',
    'Postes Canada',
    'Purolator',
    'Canpar',
    'Australia Post',
    'StarTrack',
    'Sendle',
    'Aramex',
    'New Zealand Post',
    'NZ Post',
    'Deutsche Post',
    'DHL Express',
    'DHL Parcel',
    'DHL Paket',
    'PostNL',
    'bpost',
    'La Poste',
    'Colissimo',
    'Chronopost',
    'Correos',
    'CTT',
    'Poste Italiane',
    'Swiss Post',
    'Austrian Post',
    'Österreichische Post',
    'PostNord',
    'Posten Norge',
    'Bring',
    'Posti',
    'An Post',
    'Japan Post',
    'Yamato',
    'Sagawa',
    'China Post',
    'China EMS',
    'Hongkong Post',
    'Singapore Post',
    'Korea Post',
    'India Post',
    'Correios',
    'Correos de Mexico',
    'Estafeta',
    'TNT',
    'Poczta Polska',
    'InPost',
    // Shopify's own spellings of these, with a service or country after the name, are matched by
    // their first words (carriesNoPackageOfOurs): "Royal Mail Tracked 48", "RM 48 Medium Parcel",
    // "Deutsche Post (DE)", "DHL Sweden", "DPD Local".
    'RM',
    'DHL',
  ].map(normalizeCompanyName),
);

/** Names that start like a carrier above but hand their parcels to USPS for the last mile: by format. */
const USPS_LAST_MILE = new Set(
  ['DHL eCommerce', 'DHL Global Mail', 'DHL SmartMail', 'DHL eCommerce Solutions'].map(normalizeCompanyName),
);

/**
 * Whether the store named a carrier that delivers on its own: its name, or its first words (a
 * service or country after it: a probe found "Royal Mail Tracked 48" tracked as USPS and "DHL" as
 * FedEx by their numbers' formats), unless it is one whose last mile is USPS.
 */
function carriesNoPackageOfOurs(company: string): boolean {
  const words = normalizeCompanyName(company).split(' ');
  const startsWith = (names: ReadonlySet<string>) =>
    words.some((_, index) => names.has(words.slice(0, index + 1).join(' ')));
  return !startsWith(USPS_LAST_MILE) && startsWith(CARRIERS_WE_DO_NOT_TRACK);
}

export type CarrierMapping =
  | { carrier: CarrierCode; via: 'built-in alias' | 'shop alias' | 'tracking number' }
  | { carrier: null; reason: string };

/** Case, surrounding space, dots and repeated spaces do not matter: "U.S. Postal  Service" = "us postal service". */
export function normalizeCompanyName(company: string): string {
  return company
    .toLowerCase()
    .replace(/\./g, '')
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/**
 * The carrier a tracking company's name stands for — a built-in spelling or the shop's own alias —
 * or null: the name alone does not say (the tracking number's format may still).
 */
export function carrierForCompanyName(company: string, shopAliases: Record<string, string> = {}): CarrierCode | null {
  const name = normalizeCompanyName(company);
  if (!name) return null;
  const builtIn = BUILT_IN_ALIASES[name];
  if (builtIn) return builtIn;
  for (const [alias, code] of Object.entries(shopAliases))
    if (normalizeCompanyName(alias) === name && isCarrierCode(code)) return code;
  return null;
}

/**
 * Which of our carriers a fulfillment ships with: the built-in aliases, then the shop's own mapping
 * (`{"Royal Mail Tracked": "usps"}`, keys matched the same way), then the tracking number's format.
 */
export function mapTrackingCompany(
  company: string | null | undefined,
  number: string | null | undefined,
  shopAliases: Record<string, string> = {},
): CarrierMapping {
  if (company) {
    const builtIn = BUILT_IN_ALIASES[normalizeCompanyName(company)];
    if (builtIn) return { carrier: builtIn, via: 'built-in alias' };
    const aliased = carrierForCompanyName(company, shopAliases);
    if (aliased) return { carrier: aliased, via: 'shop alias' };
  }
  const trackingNumber = number ? normalizeTrackingNumber(number) : '';
  if (company && trackingNumber && carriesNoPackageOfOurs(company))
    return { carrier: null, reason: `Doorstep does not track "${company}" (only UPS, FedEx and USPS)` };
  if (trackingNumber) {
    const detected = detectCarrier(trackingNumber);
    if (detected) return { carrier: detected, via: 'tracking number' };
  }
  if (!trackingNumber)
    return {
      carrier: null,
      reason: company
        ? `the fulfillment with "${company}" has no tracking number`
        : 'the fulfillment has no carrier and no tracking number',
    };
  return {
    carrier: null,
    reason: company
      ? `Doorstep does not track "${company}" (only UPS, FedEx and USPS) and the tracking number matches none of their formats`
      : 'the fulfillment names no carrier and its tracking number matches no UPS, FedEx or USPS format',
  };
}

export function isCarrierCode(value: string): value is CarrierCode {
  return (CARRIER_CODES as readonly string[]).includes(value);
}
