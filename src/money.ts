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
 * ISO 4217's minor-unit exponents other than 2 (the standard's list, active codes). Fixed here, not read
 * from the runtime's ICU: ICU follows CLDR, which gives HUF, IDR and COP no decimals and IQD none, and
 * changes between versions — a stored price must mean the same to every process and every browser.
 */
const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    [
      'BIF',
      'CLP',
      'DJF',
      'GNF',
      'ISK',
      'JPY',
      'KMF',
      'KRW',
      'PYG',
      'RWF',
      'UGX',
      'UYI',
      'VND',
      'VUV',
      'XAF',
      'XOF',
      'XPF',
    ].map((code) => [code, 0]),
  ),
  ...Object.fromEntries(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
};

/**
 * How many decimals a currency's minor unit has (ISO 4217: JPY and KRW 0, KWD and BHD 3, most 2); 2 for
 * a code not listed. Pure: the embedded admin's page uses it too.
 */
export function currencyDecimals(currency: string | null | undefined): number {
  return CURRENCY_EXPONENTS[currency?.trim().toUpperCase() ?? ''] ?? 2;
}
