/**
 * npm run bench:tracking [-- --write] [--packages N] [--seed S]
 *
 * Simulates a fleet under the real schedule (src/tracking/schedule.ts) and fixed-interval baselines,
 * prints a markdown report with PASS/MISS per target, and with --write also stores it in RESULTS.md.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nextPoll } from '../../src/tracking/schedule.ts';
import { describeWorld, generateFleet, type FleetOptions, type Journey } from './journey.ts';
import { POLICIES, adaptiveSchedule } from './policies.ts';
import { checkTargets, measure, renderReport, type Metrics } from './report.ts';
import { simulate, type Policy } from './simulate.ts';

const MINUTE = 60_000;
const LABEL_DAYS = 14;

const { values } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    packages: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '42' },
  },
});
const packages = Number(values.packages);
const seed = Number(values.seed);
if (!Number.isInteger(packages) || packages < 1 || !Number.isInteger(seed))
  throw new Error('--packages and --seed take integers');

const started = performance.now();
const fleets = new Map<string, Journey[]>();
const fleet = (options: Omit<FleetOptions, 'packages' | 'seed'> = {}): Journey[] => {
  const key = JSON.stringify(options);
  let journeys = fleets.get(key);
  if (!journeys) {
    journeys = generateFleet({ packages, seed, labelDays: LABEL_DAYS, ...options });
    fleets.set(key, journeys);
  }
  return journeys;
};
const run = (name: string, kind: Metrics['kind'], policy: Policy, journeys: Journey[]): Metrics => {
  const t = performance.now();
  const metrics = measure(name, kind, journeys, simulate(journeys, policy, { seed }));
  process.stderr.write(`${name}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return metrics;
};

const rows: Metrics[] = POLICIES.map((p) => run(p.name, p.judged ? 'policy' : 'baseline', p.policy, fleet()));
rows.push(
  run(
    'adaptive, 10-min cadence on the delivery day',
    'sensitivity',
    (s, now) => nextPoll(s, now, { policy: { deliveryDayIntervalMs: 10 * MINUTE, windowLeadMs: 10 * MINUTE } }),
    fleet(),
  ),
  run('adaptive, carriers give no delivery windows', 'sensitivity', adaptiveSchedule, fleet({ withoutWindows: true })),
  run('adaptive, destination zone never known', 'sensitivity', adaptiveSchedule, fleet({ withoutZones: true })),
  run(
    `adaptive, fleet twice as dense (labels over ${LABEL_DAYS / 2} days)`,
    'sensitivity',
    adaptiveSchedule,
    fleet({ labelDays: LABEL_DAYS / 2 }),
  ),
  run(
    `adaptive, fleet four times as dense (labels over ${LABEL_DAYS / 4} days)`,
    'sensitivity',
    adaptiveSchedule,
    fleet({ labelDays: LABEL_DAYS / 4 }),
  ),
  run(
    `adaptive, fleet half as dense (labels over ${LABEL_DAYS * 2} days)`,
    'sensitivity',
    adaptiveSchedule,
    fleet({ labelDays: LABEL_DAYS * 2 }),
  ),
);
const runSeconds = (performance.now() - started) / 1000;

const main = rows.find((r) => r.kind === 'policy');
if (!main) throw new Error('no judged policy');
const checks = checkTargets(main, runSeconds);
const report = renderReport({ rows, checks, packages, seed, runSeconds, assumptions: describeWorld(LABEL_DAYS) });
process.stdout.write(report);
if (values.write) {
  const path = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
  writeFileSync(path, report);
  process.stderr.write(`wrote ${path}\n`);
}
