import { describe, expect, it } from 'vitest';
import { median, medianInterval, percentile } from '../../bench/stats.ts';

describe('median', () => {
  it('takes the middle of an odd count, whatever the order', () => {
    expect(median([2_455, 1_369, 3_946])).toBe(2_455);
  });
  it('averages the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('is NaN for nothing measured', () => {
    expect(median([])).toBeNaN();
  });
});

describe('percentile', () => {
  const latencies = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose

  it('returns an observed value by nearest rank', () => {
    expect(percentile(latencies, 50)).toBe(50);
    expect(percentile(latencies, 95)).toBe(95);
    expect(percentile(latencies, 100)).toBe(100);
    expect(percentile([7, 3], 50)).toBe(3);
  });
  it('rejects a percentile outside 0..100', () => {
    expect(() => percentile(latencies, 101)).toThrow(RangeError);
  });
});

describe('medianInterval', () => {
  it('gives [min, max] of five values with its exact confidence, 1 − 2/32', () => {
    // The last large-tables re-run's GET pairs.
    expect(medianInterval([0.9, 1.11, 0.92, 0.92, 0.87], 0.9)).toEqual({ low: 0.87, high: 1.11, confidence: 0.9375 });
  });

  it('narrows to the 2nd and 9th of ten values at 90%: the 3rd and 8th would hold only 89.1%', () => {
    const values = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    const interval = medianInterval(values, 0.9);
    expect([interval.low, interval.high]).toEqual([2, 9]);
    expect(interval.confidence).toBeCloseTo(1 - 22 / 1024, 12);
    const looser = medianInterval(values, 0.85);
    expect([looser.low, looser.high]).toEqual([3, 8]);
    expect(looser.confidence).toBeCloseTo(1 - 112 / 1024, 12);
  });

  it('says how little two values know: [min, max] at 50%, one value at 0%', () => {
    expect(medianInterval([1.2, 0.8])).toEqual({ low: 0.8, high: 1.2, confidence: 0.5 });
    expect(medianInterval([1])).toEqual({ low: 1, high: 1, confidence: 0 });
  });

  it('holds the true median as often as it claims (simulated, skewed data)', () => {
    // Exponential draws (median ln 2) from a fixed-seed generator: coverage must be at least 90%.
    let seed = 12345;
    const uniform = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
    let held = 0;
    const trials = 4000;
    for (let t = 0; t < trials; t++) {
      const values = Array.from({ length: 10 }, () => -Math.log(uniform()));
      const { low, high } = medianInterval(values, 0.9);
      if (low <= Math.LN2 && Math.LN2 <= high) held++;
    }
    expect(held / trials).toBeGreaterThan(0.96);
    expect(held / trials).toBeLessThan(0.995);
  });

  it('rejects a confidence outside (0, 1)', () => {
    expect(() => medianInterval([1, 2, 3], 1)).toThrow(RangeError);
  });
});
