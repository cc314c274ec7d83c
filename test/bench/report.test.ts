import { describe, expect, it } from 'vitest';
import { renderReport, type RunContext } from '../../bench/report.ts';
import { evaluate, type Figure, type Target } from '../../bench/targets.ts';

const context: RunContext = {
  date: new Date('2026-11-23T21:00:00Z'),
  commit: 'abc1234',
  mode: 'quick',
  seedRows: 50_000,
  runs: 1,
  loadSeconds: 3,
  connections: 10,
  machine: { cpu: 'Test CPU', cores: 2, memoryGb: 7.6 },
  postgres: 'PostgreSQL 15.18',
  loadAverageStart: [0.5, 0.4, 0.3],
  loadAverageEnd: [1.5, 1, 0.5],
  elapsedSeconds: 95.4,
};

describe('renderReport', () => {
  const figures: Figure[] = [
    { id: 'service.get', label: 'Service GET', value: 610, unit: 'req/s', note: 'p50 14 ms' },
    { id: 'floor.get-auth', label: 'GET floor | auth', value: 1_000, unit: 'req/s' },
  ];
  const target: Target = {
    label: 'GET ≥ 0.8× floor',
    figure: 'service.get',
    relativeTo: 'floor.get-auth',
    atLeast: 0.8,
    whenMissed: 'no key cache',
  };
  const report = renderReport(context, [evaluate(target, new Map(figures.map((f) => [f.id, f])))], figures, [
    { name: 'Tracking: push', status: 'not built yet', seconds: null, body: 'Filled by the carrier-push branch.' },
    { name: 'Tracking: polling', status: 'ran', seconds: 12.2, body: '# Polling\n\n| a |\n|---|' },
  ]);

  it('puts each target’s figure, ratio, verdict and reason on one row', () => {
    expect(report).toContain('| GET ≥ 0.8× floor | 610 req/s | 0.61× | MISS | 0.61× is below 0.8×: no key cache |');
  });

  it('states the machine, the load average, the commit and that --quick seeded fewer rows', () => {
    expect(report).toContain('Test CPU, 2 cores, 7.6 GB memory');
    expect(report).toContain('0.50, 0.40, 0.30 at start, 1.50, 1.00, 0.50 at the end');
    expect(report).toContain('commit `abc1234`');
    expect(report).toContain('50,000 rows each (--quick seeds fewer than the 1,000,000');
    expect(report).toContain('0 of 1 targets met');
  });

  it('escapes table cells and nests each step’s report under its own heading', () => {
    expect(report).toContain('| GET floor \\| auth | 1,000 req/s |  |');
    expect(report).toContain('## Tracking: push (not built yet)\n\nFilled by the carrier-push branch.');
    expect(report).toContain('## Tracking: polling (ran, 12 s)\n\n### Polling');
  });
});

describe('renderReport with an interval', () => {
  it('shows the interval the verdict rests on and counts the undecided', () => {
    const figure: Figure = {
      id: 'constancy.service.get',
      label: 'GET large ÷ empty',
      value: 0.92,
      unit: '×',
      interval: { low: 0.87, high: 1.11, confidence: 0.9375 },
      evidence: 'buffers 12 → 14',
    };
    const target: Target = { label: 'GET within 10%', figure: figure.id, atLeast: 0.9, whenMissed: 'a Seq Scan' };
    const report = renderReport(context, [evaluate(target, new Map([[figure.id, figure]]))], [figure], []);
    expect(report).toContain('| GET within 10% | 0.87–1.11× (93.8% interval) | 0.92× | NOT DECIDED | 93.8% interval');
    expect(report).toContain('0 of 1 targets met, 1 not decided');
    const withPairs = renderReport({ ...context, pairs: { count: 10, seconds: 5 } }, [], [], []);
    expect(withPairs).toContain(
      '50,000 rows each (--quick seeds fewer than the 1,000,000 the target names); 10 pairs of 5 s runs',
    );
  });
});
