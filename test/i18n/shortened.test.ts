import { describe, expect, it } from 'vitest';
import { shortened } from '../../src/i18n/shortened.ts';

describe('shortened', () => {
  it('returns text within the limit as it is', () => {
    expect(shortened('Ann', 3)).toBe('Ann');
  });

  it('cuts between characters a reader sees, never inside a surrogate pair or a cluster (fields probe)', () => {
    // "😀" is two UTF-16 units: cutting at 4 units would keep half of it.
    expect(shortened('abc😀def', 5)).toBe('abc…');
    // A flag (two regional indicators) and an e + combining acute accent stay whole or go.
    expect(shortened('ab🇫🇷cd', 7)).toBe('ab🇫🇷…');
    expect(shortened('ab🇫🇷cd', 6)).toBe('ab…');
    expect(shortened('abe\u0301cd', 4)).toBe('ab…');
    for (const text of [shortened('x'.repeat(10) + '👨‍👩‍👧'.repeat(5), 15), shortened('😀'.repeat(100), 50)]) {
      expect(text.isWellFormed()).toBe(true);
      expect(text.length).toBeLessThanOrEqual(50);
    }
  });

  it('drops white space left before the ellipsis, and gives nothing for no room', () => {
    expect(shortened('Ann Marie', 5)).toBe('Ann…');
    expect(shortened('Ann', 0)).toBe('');
  });
});
