import { describe, expect, it } from 'vitest';
import { constancyId, evaluate, formatNumber, TARGETS, type Figure, type Target } from '../../bench/targets.ts';

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
  it('holds every HTTP scenario to 10% of its empty-table figure once the tables are large, at 90% confidence', () => {
    const constancy = TARGETS.filter((t) => t.figure.startsWith('constancy.'));
    expect(constancy.map((t) => [t.figure, t.relativeTo, t.atLeast, t.confidence])).toEqual([
      [constancyId('service.get'), undefined, 0.9, 0.9],
      [constancyId('service.put-price'), undefined, 0.9, 0.9],
      [constancyId('service.put-carrier'), undefined, 0.9, 0.9],
      [constancyId('service.webhook-intake'), undefined, 0.9, 0.9],
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

describe('evaluate on a confidence interval', () => {
  const constancy: Target = {
    label: 'GET with large tables within 10% of empty',
    figure: 'constancy.service.get',
    atLeast: 0.9,
    confidence: 0.9,
    whenMissed: 'a Seq Scan',
  };
  const ratio = (low: number, high: number, confidence: number, extra: Partial<Figure> = {}): Figure => ({
    id: 'constancy.service.get',
    label: 'GET large ÷ empty',
    value: (low + high) / 2,
    unit: '×',
    interval: { low, high, confidence },
    evidence: 'buffers 12 → 14',
    ...extra,
  });

  it('passes when the whole interval is at or above the target', () => {
    expect(evaluate(constancy, figures(ratio(0.9, 1.08, 0.979)))).toMatchObject({ verdict: 'PASS', reason: '' });
  });

  it('misses when the whole interval is below, with the cause and the evidence', () => {
    const result = evaluate(constancy, figures(ratio(0.07, 0.1, 0.979)));
    expect(result.verdict).toBe('MISS');
    expect(result.reason).toBe('97.9% interval 0.07–0.1×, all of it below 0.9×: a Seq Scan; buffers 12 → 14');
  });

  it('does not decide an interval that straddles the target, and shows it', () => {
    // The last re-run's GET: median 0.92×, but the pairs ranged 0.87–1.11.
    const result = evaluate(constancy, figures(ratio(0.87, 1.11, 0.9375)));
    expect(result.verdict).toBe('NOT DECIDED');
    expect(result.interval).toEqual({ low: 0.87, high: 1.11, confidence: 0.9375 });
    expect(result.reason).toContain('93.8% interval 0.87–1.11× straddles 0.9×');
    expect(result.reason).toContain('buffers 12 → 14');
  });

  it('does not decide on too few pairs, however good they look', () => {
    const result = evaluate(constancy, figures(ratio(0.98, 1.02, 0.5)));
    expect(result.verdict).toBe('NOT DECIDED');
    expect(result.reason).toMatch(/^50% interval 0.98–1.02×: too few pairs to reach 90% confidence/);
  });

  it('never passes an interval measured with errors', () => {
    const result = evaluate(constancy, figures(ratio(0.95, 1.05, 0.979, { problem: '3 answers were not 2xx' })));
    expect(result).toMatchObject({ verdict: 'MISS' });
    expect(result.reason).toContain('3 answers were not 2xx');
  });
});
