import { describe, expect, it } from 'vitest';
import { decideRange } from '../../src/videos/storage/range.ts';

describe('HTTP Range decisions (RFC 9110 §14)', () => {
  it.each([
    ['bytes=0-99', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=100-', { kind: 'partial', range: { start: 100, end: 999 } }],
    ['bytes=-100', { kind: 'partial', range: { start: 900, end: 999 } }],
    ['bytes=900-5000', { kind: 'partial', range: { start: 900, end: 999 } }],
    ['bytes=-5000', { kind: 'partial', range: { start: 0, end: 999 } }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    [undefined, { kind: 'full' }],
    ['bytes=5-1', { kind: 'full' }],
    ['bytes=0-1,5-9', { kind: 'full' }],
    ['items=0-1', { kind: 'full' }],
  ])('%s of 1000 bytes', (header, expected) => {
    expect(decideRange(header, 1000)).toEqual(expected);
  });
});
