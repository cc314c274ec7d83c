import { describe, expect, it } from 'vitest';
import {
  evaluate,
  formatNumber,
  pairedEmptyId,
  seededId,
  TARGETS,
  type Figure,
  type Target,
} from '../../bench/targets.ts';

const figures = (...list: Figure[]) => new Map(list.map((f) => [f.id, f]));
const rps = (id: string, value: number | null, extra: Partial<Figure> = {}): Figure => ({
  id,
  label: id,
  value,
  unit: 'req/s',
  ...extra,
});

const getVsFloor: Target = {
  label: 'GET ≥ 0.8× floor',
  figure: 'service.get',
  relativeTo: 'floor.get-auth',
  atLeast: 0.8,
  whenMissed: 'no key cache',
};

describe('evaluate', () => {
  it('passes a ratio at or above its target', () => {
    const result = evaluate(getVsFloor, figures(rps('service.get', 800), rps('floor.get-auth', 1000)));
    expect(result).toMatchObject({ verdict: 'PASS', ratio: 0.8, reason: '' });
  });

  it('misses a ratio below its target and says why', () => {
    const result = evaluate(getVsFloor, figures(rps('service.get', 610), rps('floor.get-auth', 1000)));
    expect(result.verdict).toBe('MISS');
    expect(result.ratio).toBeCloseTo(0.61);
    expect(result.reason).toBe('0.61× is below 0.8×: no key cache');
  });

  it('judges an absolute limit in the figure’s own unit', () => {
    const target: Target = { label: 'p95', figure: 'd.p95', atMost: 200, whenMissed: 'tick' };
    const slow = figures({ id: 'd.p95', label: 'p95', value: 1_040, unit: 'ms' });
    expect(evaluate(target, slow)).toMatchObject({
      verdict: 'MISS',
      ratio: null,
      reason: '1,040 ms is above 200 ms: tick',
    });
    const fast = figures({ id: 'd.p95', label: 'p95', value: 12, unit: 'ms' });
    expect(evaluate(target, fast).verdict).toBe('PASS');
  });

  it('reports a figure that was not measured, with the note that says why', () => {
    const result = evaluate(getVsFloor, figures(rps('service.get', null, { note: 'service failed to start' })));
    expect(result).toMatchObject({ verdict: 'NOT MEASURED', reason: 'service failed to start' });
  });

  it('reports a missing reference rather than dividing by nothing', () => {
    const result = evaluate(getVsFloor, figures(rps('service.get', 900), rps('floor.get-auth', 0)));
    expect(result.verdict).toBe('NOT MEASURED');
  });

  it('never passes a figure measured with errors, however fast', () => {
    const result = evaluate(
      getVsFloor,
      figures(rps('service.get', 5_000, { problem: '12 answers were not 2xx' }), rps('floor.get-auth', 1000)),
    );
    expect(result).toMatchObject({ verdict: 'MISS', reason: '12 answers were not 2xx' });
  });
});

describe('TARGETS', () => {
  it('holds every HTTP scenario to 10% of its empty-table figure once the tables are large', () => {
    const seeded = TARGETS.filter((t) => t.figure.startsWith('seeded.'));
    expect(seeded.map((t) => [t.figure, t.relativeTo, t.atLeast])).toEqual([
      [seededId('service.get'), pairedEmptyId('service.get'), 0.9],
      [seededId('service.put-price'), pairedEmptyId('service.put-price'), 0.9],
      [seededId('service.put-carrier'), pairedEmptyId('service.put-carrier'), 0.9],
      [seededId('service.webhook-intake'), pairedEmptyId('service.webhook-intake'), 0.9],
    ]);
  });

  it('names the issue’s ratios against the floors', () => {
    const ratios = TARGETS.filter((t) => t.relativeTo?.startsWith('floor.')).map((t) => [
      t.figure,
      t.relativeTo,
      t.atLeast,
    ]);
    expect(ratios).toEqual([
      ['service.get', 'floor.get-auth', 0.8],
      ['service.get', 'floor.get', 0.6],
      ['service.put-price', 'floor.put', 0.9],
      ['service.webhook-intake', 'floor.webhook', 0.8],
    ]);
  });
});

describe('formatNumber', () => {
  it('rounds large figures with separators and keeps three digits of small ones', () => {
    expect(formatNumber(15_331.4)).toBe('15,331');
    expect(formatNumber(0.61234)).toBe('0.612');
    expect(formatNumber(12.345)).toBe('12.3');
  });
});

describe('evaluate with a problem and a miss', () => {
  it('gives both the miss and what was wrong with the measurement', () => {
    const target: Target = {
      label: 'drain',
      figure: 'burst.drain',
      relativeTo: 'burst.length',
      atMost: 1,
      whenMissed: 'slow',
    };
    const result = evaluate(
      target,
      figures(
        { id: 'burst.drain', label: 'drain', value: 24, unit: 's', problem: 'only 315/s of 500/s accepted' },
        { id: 'burst.length', label: 'length', value: 2, unit: 's' },
      ),
    );
    expect(result).toMatchObject({
      verdict: 'MISS',
      ratio: 12,
      reason: '12× is above 1×: slow; only 315/s of 500/s accepted',
    });
  });
});
