// Tracking-number normalization, validation and carrier detection for UPS, FedEx and USPS.
//
// Pure module: no I/O. The formats and check-digit algorithms come from
// docs/carriers/NOTES.md ("Tracking-number formats") and from jkeen/tracking_number_data
// v2.0.0 (couriers/ups.json, fedex.json, usps.json, s10.json; CHECKSUM_ALGORITHMS.md), whose published
// test numbers are our vectors (test/fixtures/tracking-number-vectors.json).

import { type CarrierCode } from './carrier-code.ts';

export { CARRIER_CODES, type CarrierCode } from './carrier-code.ts';

export type TrackingNumberValidation = { valid: true; format: string } | { valid: false; reason: string };

const DISPLAY_NAMES: Record<CarrierCode, string> = { ups: 'UPS', fedex: 'FedEx', usps: 'USPS' };

export function carrierDisplayName(carrier: CarrierCode): string {
  return DISPLAY_NAMES[carrier];
}

/**
 * What Doorstep stores as a tracking number, once normalized, whatever the carrier: the API and the
 * Shopify mapping refuse anything else (docs/api.md). The rule is said in its words, ASCII included.
 */
export const STORABLE_TRACKING_NUMBER = /^[\x21-\x7E]{1,64}$/;
export const STORABLE_TRACKING_NUMBER_RULE = '1 to 64 printable ASCII characters';

/** Strips all whitespace and upper-cases: labels print numbers in spaced groups, people paste them. */
export function normalizeTrackingNumber(raw: string): string {
  // Carriers print numbers in groups, with spaces or (USPS receipts, merchants' spreadsheets) dashes —
  // a word processor's en dash or a minus sign among them; no format of any of the three has either.
  // Only ASCII letters are upper-cased: "ß" → "SS" or a Turkish dotless "ı" → "I" would store another
  // number than the one sent (API probe), which the schema then refuses as not printable ASCII.
  return raw
    .replace(/[\s\-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]+/g, '')
    .replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

// ---------------------------------------------------------------------------------------------------
// Check-digit helpers. Each returns the expected check digit for `body` (the characters it covers).

/**
 * tracking_number_data "mod10": positions counted from 0 on the left, even positions × evenWeight, odd
 * × oddWeight; a letter counts as (charCode − 3) % 10 (UPS). Check = (10 − sum % 10) % 10.
 * UPS uses ×1/×2; GS1 (USPS IMpb, SSCC-18) ×3/×1; FedEx Ground ×1/×3.
 */
function mod10(body: string, evenWeight: number, oddWeight: number): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const value = c >= 48 && c <= 57 ? c - 48 : (c - 3) % 10;
    sum += value * (i % 2 === 0 ? evenWeight : oddWeight);
  }
  return (10 - (sum % 10)) % 10;
}

/** FedEx Express "sum_product_with_weightings_and_modulo": weights repeat from the left, sum % 11 % 10. */
function weightedMod11(body: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    sum += Number(body[i]) * (weights[i % weights.length] ?? 0);
  }
  return (sum % 11) % 10;
}

/** UPU S10 over the 8 serial digits: weights 8,6,4,2,3,5,9,7; r = sum % 11; r=1→0, r=0→5, else 11−r. */
function s10CheckDigit(serial: string): number {
  const weights = [8, 6, 4, 2, 3, 5, 9, 7];
  let sum = 0;
  for (let i = 0; i < serial.length; i++) {
    sum += Number(serial[i]) * (weights[i] ?? 0);
  }
  const r = sum % 11;
  if (r === 1) return 0;
  if (r === 0) return 5;
  return 11 - r;
}

const FEDEX_EXPRESS_WEIGHTS = [3, 1, 7]; // over the 11 digits before the check digit
const FEDEX_34_WEIGHTS = [1, 7, 3]; // over 13 digits: the same 3,1,7 run aligned to the check digit

// S10 country codes with a postal operator, from tracking_number_data couriers/s10.json ("Courier"
// lookup). Its validation requires the lookup to match, which is why RB123456785XX is invalid.
const S10_COUNTRY_CODES = new Set(
  (
    'AE AF AG AL AM AO AR AT AU AZ BA BB BD BE BF BG BH BI BJ BN BO BR BS BT BW BY BZ CA CD CF CG CH CI ' +
    'CL CM CN CO CR CU CV CY CZ DE DJ DK DM DO DZ EC EE EG ER ES ET FI FJ FR GA GB GD GE GH GM GN GQ GR ' +
    'GT GW GY HK HN HR HT HU ID IE IL IN IQ IR IS IT JM JO JP KE KG KH KI KM KN KP KR KW KZ LA LB LC LI ' +
    'LK LR LS LT LU LV LY MA MC MD ME MG MK ML MM MN MR MT MU MV MW MX MY MZ NA NE NG NI NL NO NP NR NZ ' +
    'OM PA PE PG PH PK PL PT PY QA RO RS RU RW SA SB SC SD SE SG SI SK SL SM SN SO SR SS ST SV SY SZ TD ' +
    'TG TH TJ TL TM TN TO TR TT TV TZ UA UG US UY UZ VA VC VE VN VU WS YE ZA ZM ZW'
  ).split(' '),
);

// ---------------------------------------------------------------------------------------------------
// The format table.

interface TrackingFormat {
  carrier: CarrierCode;
  /** The format's name in tracking_number_data. */
  name: string;
  /**
   * Anchored pattern over the normalized number. Named groups: `body` = the characters the check digit
   * covers, `check` = the check digit, and any group `accepts` needs.
   */
  pattern: RegExp;
  checkDigit: (body: string) => number;
  /** A rule beyond pattern and check digit. */
  accepts?: (groups: Record<string, string | undefined>) => boolean;
  /** USPS barcodes may carry a "420" + ZIP (5 digits) or ZIP+4 (9 digits) routing prefix; it is not checked. */
  routingPrefix?: boolean;
  /** A USPS IMpb number: UPS SurePost/Ground Saver and FedEx Ground Economy (SmartPost) ship on these. */
  impb?: boolean;
}

const FORMATS: readonly TrackingFormat[] = [
  // --- UPS ---
  // 1Z + shipper (6) + service (2) + package (7) + check; mod10 ×1/×2 over the 15 characters after 1Z.
  { carrier: 'ups', name: 'UPS', pattern: /^1Z(?<body>[A-Z0-9]{15})(?<check>\d)$/, checkDigit: (b) => mod10(b, 1, 2) },
  // Waybill: service letter + 9-digit serial + check, the same mod10 ×1/×2 over the serial.
  {
    carrier: 'ups',
    name: 'UPS Waybill',
    pattern: /^[A-Z](?<body>\d{9})(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 1, 2),
  },

  // --- FedEx ---
  {
    carrier: 'fedex',
    name: 'FedEx Express (12)',
    pattern: /^(?<body>\d{11})(?<check>\d)$/,
    checkDigit: (b) => weightedMod11(b, FEDEX_EXPRESS_WEIGHTS),
  },
  // 34-digit barcode: the tracking number is at the end. The first digit is 0–8 since FedEx's 2024
  // FDX1D barcode change (tracking_number_data #117), so it never starts with 9 (GSN does).
  {
    carrier: 'fedex',
    name: 'FedEx Express (34)',
    pattern: /^[0-8]\d{19}(?<body>\d{13})(?<check>\d)$/,
    checkDigit: (b) => weightedMod11(b, FEDEX_34_WEIGHTS),
  },
  // ASTRA label barcode: "3" + 15 digits + the 12-digit Express number + 4 digits.
  {
    carrier: 'fedex',
    name: 'FedEx ASTRA (32)',
    pattern: /^3\d{15}(?<body>\d{11})(?<check>\d)\d{4}$/,
    checkDigit: (b) => weightedMod11(b, FEDEX_EXPRESS_WEIGHTS),
  },
  {
    carrier: 'fedex',
    name: 'FedEx Ground',
    pattern: /^(?<body>\d{14})(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 1, 3),
  },
  // Container type (2) + serial (15) + check; the check covers the serial only.
  {
    carrier: 'fedex',
    name: 'FedEx Ground (SSCC-18)',
    pattern: /^\d{2}(?<body>\d{15})(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 3, 1),
  },
  // The same SSCC-18 as its barcode's human-readable line prints it: GS1 application identifier (00) first.
  {
    carrier: 'fedex',
    name: 'FedEx Ground (SSCC-18, AI 00)',
    pattern: /^00\d{2}(?<body>\d{15})(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 3, 1),
  },
  // Ground Economy (SmartPost) as FedEx shows it: the IMpb "92 612 9…" without its application identifier
  // "92", which the check digit still covers (as USPS's 20-digit legacy form omits "91").
  {
    carrier: 'fedex',
    name: 'FedEx Ground Economy (20)',
    pattern: /^(?<body>612\d{16})(?<check>\d)$/,
    checkDigit: (b) => mod10('92' + b, 3, 1),
  },
  // 96 + SCNC (2) + service (3) + the 15-digit Ground number.
  {
    carrier: 'fedex',
    name: 'FedEx Ground 96 (22)',
    pattern: /^96\d{5}(?<body>\d{14})(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 1, 3),
  },
  // 96 + SCNC (2) + 5 + GSN (10) + 1 + serial (13) + check, checked like Express 34.
  {
    carrier: 'fedex',
    name: 'FedEx Ground GSN',
    pattern: /^96\d{18}(?<body>\d{13})(?<check>\d)$/,
    checkDigit: (b) => weightedMod11(b, FEDEX_34_WEIGHTS),
  },

  // --- USPS --- (GS1 mod10 ×3/×1 unless noted)
  { carrier: 'usps', name: 'USPS 20', pattern: /^(?<body>\d{19})(?<check>\d)$/, checkDigit: (b) => mod10(b, 3, 1) },
  // IMpb, Publication 199. Non-concatenated: application identifier 94.
  {
    carrier: 'usps',
    name: 'USPS IMpb N',
    pattern: /^(?<body>94\d{19}(?:\d{4})?)(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 3, 1),
    routingPrefix: true,
    impb: true,
  },
  // Application identifier 91 (pre-IMpb). The 20-digit printed form omits the "91", which the check
  // digit still covers, so it is put back before checking.
  {
    carrier: 'usps',
    name: 'USPS Legacy',
    pattern: /^(?<body>91\d{19}(?:\d{4})?|\d{19})(?<check>\d)$/,
    checkDigit: (b) => mod10(b.length === 19 ? '91' + b : b, 3, 1),
    routingPrefix: true,
  },
  // Concatenated IMpb: AI 92 + service (3) + 9-digit mailer ID (9-digit MIDs start with 9), or AI 93/95
  // + service (3) + 6-digit mailer ID (6-digit MIDs start with 0–8); 22 digits, or 26 with a long serial.
  // FedEx SmartPost / Ground Economy "92 61 29…" numbers are these.
  {
    carrier: 'usps',
    name: 'USPS IMpb C',
    pattern: /^(?<body>(?:92\d{3}9|9[35]\d{3}[0-8])\d{15}(?:\d{4})?)(?<check>\d)$/,
    checkDigit: (b) => mod10(b, 3, 1),
    routingPrefix: true,
    impb: true,
  },
  // UPU S10 international items (e.g. RB123456785US), which USPS tracks once they reach the US.
  {
    carrier: 'usps',
    name: 'S10',
    pattern: /^[A-Z]{2}(?<body>\d{8})(?<check>\d)(?<country>[A-Z]{2})$/,
    checkDigit: s10CheckDigit,
    accepts: (groups) => S10_COUNTRY_CODES.has(groups.country ?? ''),
  },
];

// ---------------------------------------------------------------------------------------------------
// Matching.

type FormatMatch = 'valid' | 'bad-check-digit' | 'no-match';

/** The number itself, plus what follows a "420" + ZIP or ZIP+4 routing prefix. */
function withoutRoutingPrefix(number: string): string[] {
  if (!/^420\d+$/.test(number)) return [number];
  return [number, number.slice(8), number.slice(12)];
}

function matchFormat(format: TrackingFormat, number: string): FormatMatch {
  const candidates = format.routingPrefix ? withoutRoutingPrefix(number) : [number];
  let result: FormatMatch = 'no-match';
  for (const candidate of candidates) {
    const groups = format.pattern.exec(candidate)?.groups;
    if (!groups || groups.body === undefined || groups.check === undefined) continue;
    if (format.accepts && !format.accepts(groups)) continue;
    if (format.checkDigit(groups.body) === Number(groups.check)) return 'valid';
    result = 'bad-check-digit';
  }
  return result;
}

function validFormats(number: string): TrackingFormat[] {
  const normalized = normalizeTrackingNumber(number);
  return FORMATS.filter((format) => matchFormat(format, normalized) === 'valid');
}

/** Every carrier/format whose pattern and check digit match the (normalized) number. */
export function identifyTrackingNumber(number: string): Array<{ carrier: CarrierCode; format: string }> {
  return validFormats(number).map((format) => ({ carrier: format.carrier, format: format.name }));
}

/**
 * Valid when one of the carrier's formats matches with a correct check digit. USPS IMpb numbers are also
 * valid for UPS and FedEx: SurePost / Ground Saver and Ground Economy (SmartPost) parcels carry them and
 * USPS delivers them (docs/carriers/NOTES.md).
 */
export function validateTrackingNumber(carrier: CarrierCode, number: string): TrackingNumberValidation {
  const normalized = normalizeTrackingNumber(number);
  const name = carrierDisplayName(carrier);
  if (normalized === '') return { valid: false, reason: `The ${name} tracking number is empty.` };

  const formats = FORMATS.filter((f) => f.carrier === carrier || (f.impb === true && carrier !== 'usps'));
  let checkDigitFailed = false;
  for (const format of formats) {
    const match = matchFormat(format, normalized);
    if (match === 'valid') return { valid: true, format: format.name };
    if (match === 'bad-check-digit') checkDigitFailed = true;
  }
  const quoted = quote(normalized);
  return {
    valid: false,
    reason: checkDigitFailed
      ? `${quoted} is not a valid ${name} tracking number (check digit does not match).`
      : `${quoted} does not look like a ${name} tracking number.`,
  };
}

/**
 * The one carrier the number's format points to, for orders whose carrier is unknown (e.g. a Shopify
 * fulfillment with a custom tracking company). IMpb numbers are USPS's whoever sold the label, since USPS
 * delivers them. Null when nothing matches or formats of several carriers match.
 */
export function detectCarrier(number: string): CarrierCode | null {
  const formats = validFormats(number);
  if (formats.some((format) => format.impb)) return 'usps';
  const carriers = new Set(formats.map((format) => format.carrier));
  if (carriers.size !== 1) return null;
  const [carrier] = carriers;
  return carrier ?? null;
}

/** JSON quoting keeps control characters and quotes out of API warnings; long input is shortened. */
function quote(number: string): string {
  const MAX = 40; // the longest format is 34 characters
  return JSON.stringify(number.length > MAX ? number.slice(0, MAX) + '…' : number);
}
