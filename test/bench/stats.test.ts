import { describe, expect, it } from 'vitest';
import { median, percentile } from '../../bench/stats.ts';

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
