import type { ByteRange } from './storage.ts';

export type RangeDecision =
  /** Send everything (no Range, or one we may ignore: RFC 9110 §14.2 lets a server ignore an invalid or multi-range header). */
  | { kind: 'full' }
  | { kind: 'partial'; range: ByteRange }
  /** 416 with `Content-Range: bytes *\/size`. */
  | { kind: 'unsatisfiable' };

/**
 * One `bytes=` range against a resource of `size` bytes (RFC 9110 §14.1.2): `a-b`, `a-` and the
 * suffix form `-n`. An end past the last byte is clamped; a start at or past the end is unsatisfiable.
 */
export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (!header) return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' }; // syntactically invalid: ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Number(last);
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}
