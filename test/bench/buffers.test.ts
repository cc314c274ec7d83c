import { describe, expect, it } from 'vitest';
import { addTouched, buffersVerdict, largestGrowth, touchedBetween } from '../../bench/support/buffers.ts';

const LOOKUP = 'select * from sends where order_id = $1 and kind = $2';
const UPDATE = 'update orders set price = $1 where id = $2';

describe('touchedBetween and addTouched', () => {
  it('gives a run its own buffers, per statement, and sums runs', () => {
    const before = { total: 100, byStatement: new Map([[UPDATE, 100]]) };
    const after = {
      total: 190,
      byStatement: new Map([
        [UPDATE, 160],
        [LOOKUP, 30],
      ]),
    };
    const run = touchedBetween(before, after);
    expect(run.total).toBe(90);
    expect(run.byStatement).toEqual(
      new Map([
        [UPDATE, 60],
        [LOOKUP, 30],
      ]),
    );
    const sum = new Map<string, number>();
    addTouched(sum, run);
    addTouched(sum, run);
    expect(sum.get(LOOKUP)).toBe(60);
  });
});

describe('largestGrowth', () => {
  it('names the statement whose buffers per request grew most', () => {
    const empty = {
      requests: 100,
      byStatement: new Map([
        [UPDATE, 300],
        [LOOKUP, 200],
      ]),
    };
    // 3 → 4 buffers a request for the update (a btree level), 2 → 5,000 for the lookup (a table read whole).
    const large = {
      requests: 50,
      byStatement: new Map([
        [UPDATE, 200],
        [LOOKUP, 250_000],
      ]),
    };
    expect(largestGrowth(empty, large)).toEqual({ query: LOOKUP, perRequest: 4_998 });
  });

  it('finds nothing when nothing grew or nothing was answered', () => {
    const same = { requests: 10, byStatement: new Map([[UPDATE, 30]]) };
    expect(largestGrowth(same, same)).toBeUndefined();
    expect(largestGrowth(same, { requests: 0, byStatement: new Map() })).toBeUndefined();
  });
});

describe('buffersVerdict', () => {
  it('calls a few more buffers at size index depth, not growth with the data', () => {
    expect(buffersVerdict(5.02, 7.01, 11_364)).toBe(
      'PostgreSQL buffers per request 5.02 empty, 7.01 large (+1.99), against 11,364 pages in the smallest seeded table: the work per request does not grow with the data',
    );
  });

  it('calls growth of a tenth of a table or more a read of the table, and names where', () => {
    const verdict = buffersVerdict(30, 5_030, 11_364, { query: `${LOOKUP}\n  limit 1`, perRequest: 4_998 });
    expect(verdict).toContain('(+5,000): the work per request grows with the data');
    expect(verdict).toContain(
      'most of it in `select * from sends where order_id = $1 and kind = $2 limit 1` (+4,998 per request)',
    );
  });

  it('says when there was nothing to count', () => {
    expect(buffersVerdict(Number.NaN, 7, 100)).toBe('buffers per request not measured');
  });
});
