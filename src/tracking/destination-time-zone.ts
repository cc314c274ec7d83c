/**
 * Where a package is going, as the carriers tell us (UPS `packageAddress` of type DESTINATION, FedEx
 * `lastUpdatedDestinationAddress` / `recipientInformation.address`, USPS `destinationState` /
 * `destinationZIP`), turned into the destination's time zone. The schedule's hours (08:00–21:45,
 * the 09:00 look, the out-for-delivery cadence) are the destination's local hours; without a zone
 * it falls back to hours that cover every US zone at once, which costs calls and lag
 * (bench/tracking: "destination zone unknown for half").
 *
 * Pure: a table lookup and the platform's time-zone data (Intl), no I/O.
 */
import type { Destination } from '../carriers/clients/types.ts';

const EASTERN = 'America/New_York';
const CENTRAL = 'America/Chicago';
const MOUNTAIN = 'America/Denver';
const PACIFIC = 'America/Los_Angeles';

/**
 * Each state's zone where most of its people live. States split between zones get the ZIP3
 * exceptions below for their larger minority areas; the small remainders (Michigan's four western
 * Upper Peninsula counties, a few Kansas and North Dakota border counties) are an hour off at worst,
 * which the schedule's 15-minute cadence absorbs better than not knowing the zone at all.
 */
const STATE_ZONES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    'CT DC DE FL GA IN KY MA MD ME MI NC NH NJ NY OH PA RI SC VA VT WV'.split(' ').map((s) => [s, EASTERN]),
  ),
  ...Object.fromEntries('AL AR IA IL KS LA MN MO MS ND NE OK SD TN TX WI'.split(' ').map((s) => [s, CENTRAL])),
  ...Object.fromEntries('CO ID MT NM UT WY'.split(' ').map((s) => [s, MOUNTAIN])),
  ...Object.fromEntries('CA NV OR WA'.split(' ').map((s) => [s, PACIFIC])),
  AZ: 'America/Phoenix', // no daylight saving time (the Navajo Nation's is not told apart here)
  AK: 'America/Anchorage',
  HI: 'Pacific/Honolulu',
  PR: 'America/Puerto_Rico',
  VI: 'America/St_Thomas',
  GU: 'Pacific/Guam',
  MP: 'Pacific/Saipan',
  AS: 'Pacific/Pago_Pago',
};

/**
 * ZIP3 prefixes whose zone differs from their state's (USPS sectional centers of split states), with
 * the state the prefix belongs to, so a mismatched state/ZIP pair is not guessed at.
 */
const ZIP3_ZONES: Readonly<Record<string, readonly [zone: string, state: string]>> = {
  '324': [CENTRAL, 'FL'], // Panama City, FL
  '325': [CENTRAL, 'FL'], // Pensacola, FL
  '373': [EASTERN, 'TN'], // Chattanooga, TN
  '374': [EASTERN, 'TN'],
  '376': [EASTERN, 'TN'], // Johnson City / Kingsport, TN
  '377': [EASTERN, 'TN'], // Knoxville, TN
  '378': [EASTERN, 'TN'],
  '379': [EASTERN, 'TN'],
  '420': [CENTRAL, 'KY'], // Paducah, KY
  '421': [CENTRAL, 'KY'], // Bowling Green, KY
  '422': [CENTRAL, 'KY'],
  '423': [CENTRAL, 'KY'], // Owensboro, KY
  '424': [CENTRAL, 'KY'], // Henderson, KY
  '463': [CENTRAL, 'IN'], // Gary / Hammond, IN
  '464': [CENTRAL, 'IN'],
  '476': [CENTRAL, 'IN'], // Evansville, IN
  '477': [CENTRAL, 'IN'],
  '577': [MOUNTAIN, 'SD'], // Rapid City, SD
  '586': [MOUNTAIN, 'ND'], // Dickinson, ND
  '693': [MOUNTAIN, 'NE'], // Scottsbluff / Alliance, NE
  '798': [MOUNTAIN, 'TX'], // El Paso, TX
  '799': [MOUNTAIN, 'TX'],
  '885': [MOUNTAIN, 'TX'],
  '835': [PACIFIC, 'ID'], // Lewiston, ID
  '838': [PACIFIC, 'ID'], // Coeur d'Alene, ID
};

/** Countries whose destinations this table knows: the US and the territories USPS serves as states. */
const US_COUNTRY_CODES = new Set(['US', 'USA', 'PR', 'VI', 'GU', 'MP', 'AS']);

/**
 * The destination's IANA time zone, or null when it cannot be told (no state, a country we do not
 * map, a military address). The ZIP decides where it is more precise than the state.
 */
export function destinationTimeZone(destination: Destination): string | null {
  const country = destination.countryCode?.trim().toUpperCase() || null;
  if (country !== null && !US_COUNTRY_CODES.has(country)) return null;
  const zip3 = /^(\d{3})\d{2}(?:-?\d{4})?$/.exec(destination.postalCode?.trim() ?? '')?.[1];
  // Territories often come as a country of their own (PR) rather than as a state of the US.
  const state =
    destination.state?.trim().toUpperCase() ||
    (country !== null && country !== 'US' && country !== 'USA' ? country : '');
  // A ZIP3 exception counts only with a state that agrees (or none given): a mismatched pair is not guessed at.
  const exception = zip3 === undefined ? undefined : ZIP3_ZONES[zip3];
  if (exception !== undefined && (state === '' || exception[1] === state)) return exception[0];
  return STATE_ZONES[state] ?? null;
}
