import { parsePhoneNumberFromString, validatePhoneNumberLength, type CountryCode } from 'libphonenumber-js/min';

/**
 * A phone number read as E.164, or why it cannot be one: words that follow the field's name, without
 * the number itself (a reason may reach a log or the merchant's Home, and a phone is personal data).
 */
export type PhoneReading = { ok: true; e164: string } | { ok: false; problem: string };

const INTERNATIONAL_FORM = 'must be a phone number in international (E.164) form, e.g. +14155550123';

/**
 * The one reading of a typed phone number, for the API, the record page and Shopify alike. Parsed with
 * libphonenumber-js, which knows each country's number lengths and national trunk prefixes: "+44 (0)7700
 * 900123" is +447700900123 (a hand-made strip of punctuation kept the "(0)" and texted +4407700900123,
 * fields probe), and "+1 415 555 01234" is too long for North America. Only a number that is possible
 * for its country is taken; "possible" checks the length alone, so a new number range is not refused.
 *
 * Without `defaultCountry` the number must be international (start with +): an API client knows which
 * country it means. Shopify gives the country of the address the number came with, so "(415) 555-0123"
 * in a US order is +14155550123. The whole text must be the number — "call +1 415 555 0123" is not read
 * out of a sentence — and an extension is refused: an SMS cannot reach one.
 */
export function readPhoneNumber(typed: string, defaultCountry?: string | null): PhoneReading {
  const country = defaultCountry?.trim().toUpperCase();
  const options = {
    extract: false,
    ...(country && /^[A-Z]{2}$/.test(country) ? { defaultCountry: country as CountryCode } : {}),
  };
  const parsed = parsePhoneNumberFromString(typed, options);
  if (!parsed) return { ok: false, problem: INTERNATIONAL_FORM };
  if (parsed.ext) return { ok: false, problem: 'must be a number without an extension: an SMS cannot reach one' };
  if (!parsed.isPossible()) {
    const length = validatePhoneNumberLength(typed, options);
    const why = length === 'TOO_LONG' ? 'too long' : length === 'TOO_SHORT' ? 'too short' : 'not a possible length';
    return { ok: false, problem: `is ${why} for a +${parsed.countryCallingCode} number` };
  }
  return { ok: true, e164: parsed.number };
}
