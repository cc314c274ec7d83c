/** Small statistics the bench reports. Pure. */

/** The middle value (mean of the two middle ones for an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The value below which `p` percent of the values fall, by the nearest-rank method (a value that was
 * really observed, never an interpolation between two). NaN for no values.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** A distribution-free confidence interval on a median: two observed values and how sure it is. */
export interface MedianInterval {
  low: number;
  high: number;
  /** The exact probability that an interval built this way holds the true median (0..1). */
  confidence: number;
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2), exactly (n is small: a bench's run count). */
function binomialHalfCdf(n: number, k: number): number {
  let term = 1; // C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum / 2 ** n;
}

/**
 * The order-statistic confidence interval for the median of the population `values` are drawn
 * from: [x(k), x(n+1−k)] of the sorted values holds the true median with probability exactly
 * 1 − 2·P(Binomial(n, ½) ≤ k − 1), whatever the distribution (only independence is assumed). The
 * narrowest such interval whose confidence is at least `wanted` is returned; when even the widest,
 * [min, max], falls short (too few values), it is returned with its own, lower confidence, so the
 * reader sees how little a few runs can say. Why not a bootstrap: with the bench's 5–10 pairs a
 * bootstrap of the median only re-draws the same few values, and its nominal level overstates what
 * it knows; the order statistic's level is exact.
 */
export function medianInterval(values: readonly number[], wanted = 0.9): MedianInterval {
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN, confidence: 0 };
  if (!(wanted > 0 && wanted < 1)) throw new RangeError(`confidence must be within (0, 1), got ${wanted}`);
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const confidenceOf = (k: number) => 1 - 2 * binomialHalfCdf(n, k - 1);
  let k = 1;
  // Narrow from [min, max] while the next interval in still meets the confidence wanted.
  while (k + 1 <= n + 1 - (k + 1) && confidenceOf(k + 1) >= wanted) k++;
  return { low: sorted[k - 1]!, high: sorted[n - k]!, confidence: confidenceOf(k) };
}
