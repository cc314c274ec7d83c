/**
 * Money as Shopify writes it (a decimal string in a currency's major unit, e.g. "10.5") → integer
 * minor units (1050), never through a float. The one parser of decimal amounts: the Shopify
 * mapping (order prices), billing and the Shopify sandbox (usage records, capped amounts) use it.
 */

/** "10.5" → 1050. Amounts beyond two decimals are rounded half up (Shopify sends two). Throws on anything else. */
export function moneyToCents(amount: string): number {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new RangeError(`not a decimal amount: ${amount}`);
  const sign = match[1] === '-' ? -1 : 1;
  const fraction = (match[3] ?? '').padEnd(3, '0');
  const cents = Number(match[2]) * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
  return sign * cents;
}
