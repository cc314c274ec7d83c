/**
 * npm run bench:tracking [-- --write] [--packages N] [--seed S]
 *
 * Simulates a fleet under the real schedule (src/tracking/schedule.ts) and fixed-interval baselines,
 * prints a markdown report with PASS/MISS per target, and with --write also stores it in RESULTS.md.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeWorld, generateFleet, type FleetOptions, type Journey } from './journey.ts';
import { POLICIES, adaptiveSchedule } from './policies.ts';
import { beforeScanFloor, outForDeliveryFloor } from './floor.ts';
import {
  checkFamily,
  checkTargets,
  floorLateBudget,
  measure,
  renderFamily,
  renderReport,
  renderShopifyFedFamily,
  type FamilyRow,
  type Metrics,
  type RunTime,
} from './report.ts';
import { drawFamily } from './family.ts';
import { simulate, type FleetSlots, type Policy, type SimulationOptions } from './simulate.ts';
import { WORLDS } from './worlds.ts';
import { RARE_EARLY_SHARE } from '../../src/tracking/delivery-hours.ts';

const LABEL_DAYS = 14;

const { values } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    packages: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '42' },
    // While tuning: the judged policy in its worlds only, without baselines and density rows (not for --write).
    'worlds-only': { type: 'boolean', default: false },
    // The world family (family.ts, issue 30): how many worlds, and packages per world (sampled: fewer
    // than the named worlds' so 100 worlds run in minutes; each world also simulates a history fleet).
    family: { type: 'string', default: '100' },
    'family-packages': { type: 'string', default: '2000' },
    'family-only': { type: 'boolean', default: false },
    // Shopify's feed delays (minutes, "min-max", comma-separated) for the Shopify-fed family; "" skips it.
    'shopify-delays': { type: 'string', default: '5-60,60-240' },
  },
});
const shopifyDelays = values['shopify-delays']
  .split(',')
  .filter((text) => text.trim() !== '')
  .map((text) => {
    const [min, max] = text.split('-').map(Number);
    if (!Number.isFinite(min) || !Number.isFinite(max) || min! > max!)
      throw new Error(`--shopify-delays takes "min-max" minutes, comma-separated; got "${text}"`);
    return { label: `${min}–${max} min`, feed: { minDelayMs: min! * 60_000, maxDelayMs: max! * 60_000 } };
  });
const familySize = Number(values.family);
const familyPackages = Number(values['family-packages']);
const packages = Number(values.packages);
const seed = Number(values.seed);
if (!Number.isInteger(packages) || packages < 1 || !Number.isInteger(seed))
  throw new Error('--packages and --seed take integers');

const started = performance.now();
const startedCpu = process.cpuUsage();
const fleets = new Map<string, Journey[]>();
const fleet = (options: Omit<FleetOptions, 'packages' | 'seed'> = {}, fleetSeed = seed, size = packages): Journey[] => {
  const key = JSON.stringify({ ...options, fleetSeed, size });
  let journeys = fleets.get(key);
  if (!journeys) {
    journeys = generateFleet({ packages: size, seed: fleetSeed, labelDays: LABEL_DAYS, ...options });
    fleets.set(key, journeys);
  }
  return journeys;
};
/**
 * Production has the fleet's past: the schedule's learned hours (src/tracking/delivery-hours.ts) start
 * from what an earlier fleet of the same world taught them — other packages (another seed), never the
 * judged ones. A run on the base world without it ("cold start") shows the schedule before it has learned.
 */
const HISTORY_SEED_OFFSET = 1_000_003;
const histories = new Map<string, FleetSlots>();
const history = (
  world: Omit<FleetOptions, 'packages' | 'seed'>,
  options: SimulationOptions = {},
  size = packages,
): FleetSlots => {
  const key = JSON.stringify({ world, options, size });
  let slots = histories.get(key);
  if (!slots) {
    const past = fleet(world, seed + HISTORY_SEED_OFFSET, size);
    slots = simulate(past, adaptiveSchedule, { seed: seed + HISTORY_SEED_OFFSET, ...options }).learnedSlots;
    fleets.delete(JSON.stringify({ ...world, fleetSeed: seed + HISTORY_SEED_OFFSET, size }));
    histories.set(key, slots);
  }
  return slots;
};
const run = (
  name: string,
  kind: Metrics['kind'],
  policy: Policy,
  journeys: Journey[],
  options: SimulationOptions = {},
): Metrics => {
  const t = performance.now();
  const metrics = measure(name, kind, journeys, simulate(journeys, policy, { seed, ...options }));
  process.stderr.write(`${name}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return metrics;
};

// The world family (issue 30): the judged policy in each drawn world, beside the world's floor; then
// the same worlds Shopify-fed (each delay assumption), as context.
const familyStarted = performance.now();
const shopifyFedRows: FamilyRow[][] = shopifyDelays.map(() => []);
const familyRows: FamilyRow[] = drawFamily(familySize, seed).map((world) => {
  const journeys = fleet(world.fleet, seed, familyPackages);
  const options: SimulationOptions = {
    seed,
    ...world.simulation,
    history: history(world.fleet, world.simulation, familyPackages),
  };
  const metrics = measure(world.name, 'world', journeys, simulate(journeys, adaptiveSchedule, options));
  const ofdFloor = outForDeliveryFloor(journeys, floorLateBudget());
  const before = beforeScanFloor(journeys, world.earlyDays);
  const floor = ofdFloor.callsPerDelivered + before.callsPerDelivered;
  shopifyDelays.forEach(({ feed }, v) => {
    const fed = measure(
      world.name,
      'world',
      journeys,
      simulate(journeys, adaptiveSchedule, { ...options, shopifyFeed: feed }),
    );
    shopifyFedRows[v]!.push({ metrics: fed, floor, summary: world.summary });
  });
  fleets.delete(JSON.stringify({ ...world.fleet, fleetSeed: seed, size: familyPackages }));
  return {
    metrics: { ...metrics, outForDeliveryFloor: ofdFloor, beforeScanFloor: before },
    floor,
    summary: world.summary,
  };
});
const familySeconds = (performance.now() - familyStarted) / 1000;
process.stderr.write(`family of ${familySize} worlds × ${familyPackages} packages: ${familySeconds.toFixed(1)} s\n`);
const familySection = [
  ...renderFamily(familyRows, familyPackages, seed, familySeconds),
  ...(shopifyDelays.length === 0
    ? []
    : renderShopifyFedFamily(
        shopifyDelays.map(({ label }, v) => ({ delay: label, rows: shopifyFedRows[v]!, plain: familyRows })),
      )),
];
if (values['family-only']) {
  if (values.write) throw new Error('--family-only is for tuning; RESULTS.md needs the full run');
  process.stdout.write(familySection.join('\n') + '\n');
  process.exit(0);
}

// The judged policy runs in every world (the base world first); baselines only in the base world.
const worldRows: Metrics[] = WORLDS.map((world) => {
  const journeys = fleet(world.fleet);
  const metrics = run(world.name, 'world', adaptiveSchedule, journeys, {
    ...world.simulation,
    history: history(world.fleet, world.simulation),
  });
  return {
    ...metrics,
    outForDeliveryFloor: outForDeliveryFloor(journeys, floorLateBudget()),
    beforeScanFloor: beforeScanFloor(journeys),
  };
});
// The exchange rate of the dense start in the worst world (calls saved per point of late share, one
// point later): what the calls MISS line rests on when tuning cannot close the gap.
{
  const at = worldRows.reduce((w, m, i) => (m.callsPerDelivered > worldRows[w]!.callsPerDelivered ? i : w), 0);
  const world = WORLDS[at]!;
  const shifted = measure(
    world.name,
    'world',
    fleet(world.fleet),
    simulate(fleet(world.fleet), adaptiveSchedule, {
      seed,
      ...world.simulation,
      history: history(world.fleet, world.simulation),
      rareEarlyShare: RARE_EARLY_SHARE + 0.01,
    }),
  );
  const row = worldRows[at]!;
  const latePoints = 100 * (shifted.lateShare - row.lateShare);
  row.denseStartRate = {
    share: RARE_EARLY_SHARE,
    callsPerLatePoint: (row.callsPerDelivered - shifted.callsPerDelivered) / latePoints,
  };
}
const worldsOnly = values['worlds-only'];
if (worldsOnly && values.write) throw new Error('--worlds-only is for tuning; RESULTS.md needs the full run');
const rows: Metrics[] = worldsOnly
  ? []
  : POLICIES.filter((p) => !p.judged).map((p) => run(p.name, 'baseline', p.policy, fleet()));
const baseHistory = history({});
rows.unshift({ ...worldRows[0]!, name: POLICIES.find((p) => p.judged)!.name, kind: 'policy' });
if (!worldsOnly)
  rows.push(
    run(
      `adaptive, fleet twice as dense (labels over ${LABEL_DAYS / 2} days)`,
      'sensitivity',
      adaptiveSchedule,
      fleet({ labelDays: LABEL_DAYS / 2 }),
      { history: baseHistory },
    ),
    run(
      `adaptive, fleet four times as dense (labels over ${LABEL_DAYS / 4} days)`,
      'sensitivity',
      adaptiveSchedule,
      fleet({ labelDays: LABEL_DAYS / 4 }),
      { history: baseHistory },
    ),
    run(
      `adaptive, fleet half as dense (labels over ${LABEL_DAYS * 2} days)`,
      'sensitivity',
      adaptiveSchedule,
      fleet({ labelDays: LABEL_DAYS * 2 }),
      { history: baseHistory },
    ),
    run('adaptive, cold start (no past deliveries learned)', 'sensitivity', adaptiveSchedule, fleet()),
  );
const cpu = process.cpuUsage(startedCpu);
const runTime: RunTime = {
  wallSeconds: (performance.now() - started) / 1000,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  loadAverage: loadavg()[0] ?? 0,
};

const main = rows.find((r) => r.kind === 'policy');
if (!main) throw new Error('no judged policy');
const checks = [...checkTargets(main, worldRows, runTime), ...checkFamily(familyRows)];
const report = renderReport({
  rows,
  worlds: worldRows,
  checks,
  packages,
  seed,
  runTime,
  assumptions: describeWorld(LABEL_DAYS),
  family: familySection,
});
process.stdout.write(report);
if (values.write) {
  const path = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
  writeFileSync(path, report);
  process.stderr.write(`wrote ${path}\n`);
}
