import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';

/**
 * A phone number as a shopper or a store types it, in E.164 where it can be read: "(415) 555-0123"
 * in a US order is +14155550123. A number written nationally is read in the country of the address it
 * came with (the shipping address for the recipient, the billing address for the sender); one already
 * international is kept. Anything unreadable is returned as typed, for the order's validation to name
 * (and the order to wait for a recipient, never to lose the message). Shopify probe: "(415) 555-0123"
 * was dropped and the order waited for a recipient it had.
 */
export function phoneInE164(typed: string, countryCode: string | null | undefined): string {
  const country = countryCode?.trim().toUpperCase();
  const parsed = parsePhoneNumberFromString(
    typed,
    country && /^[A-Z]{2}$/.test(country) ? { defaultCountry: country as CountryCode } : {},
  );
  return parsed?.isPossible() ? parsed.number : typed;
}
