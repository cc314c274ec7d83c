/**
 * Money as Shopify writes it (a decimal string in a currency's major unit, e.g. "10.5") → integer
 * minor units (1050), never through a float. The one parser of decimal amounts: the Shopify
 * mapping (order prices), billing and the Shopify sandbox (usage records, capped amounts) use it.
 */

/** "10.5" → 1050: amounts in a two-decimal currency (USD, what billing speaks) in cents. */
export function moneyToCents(amount: string): number {
  return moneyToMinorUnits(amount, 2);
}

/**
 * "1500" yen → 1500, "1.250" dinars → 1250, "10.5" dollars → 1050: the amount in its currency's minor
 * units (`currencyDecimals`). Digits beyond those are rounded half up. Throws on anything else.
 */
export function moneyToMinorUnits(amount: string, decimals: number): number {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new RangeError(`not a decimal amount: ${amount}`);
  const sign = match[1] === '-' ? -1 : 1;
  const fraction = (match[3] ?? '').padEnd(decimals + 1, '0');
  const kept = decimals === 0 ? 0 : Number(fraction.slice(0, decimals));
  const minor = Number(match[2]) * 10 ** decimals + kept + (Number(fraction[decimals]) >= 5 ? 1 : 0);
  return sign * minor;
}

/**
 * How many decimals a currency's minor unit has (ISO 4217, from the runtime's ICU tables: JPY and KRW 0,
 * KWD and BHD 3, most 2), and 2 for a code ICU does not know. Pure: the embedded admin's page uses it too.
 */
export function currencyDecimals(currency: string | null | undefined): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
