/**
 * npm run bench:tracking-levers [-- --seed S] [--packages N] [--only name,name]
 *
 * The exchange-rate table behind the schedule's knobs: each lever (a change of one PollPolicy knob, or of
 * the share of deliveries left before the dense cadence) is run in every world of worlds.ts, and the
 * table shows what it saves or costs in calls per delivered package against what it costs or frees in
 * late share (deliveries seen > 15 min late, the share p95 ≤ 15 min caps at 5%). A lever that saves many
 * calls per point of late share is worth taking; the freed share goes to the lever with the cheapest
 * rate in the other direction. For tuning only; RESULTS.md (run.ts) judges the schedule.
 */
import { parseArgs } from 'node:util';
import { nextPoll, type PollPolicy } from '../../src/tracking/schedule.ts';
import { generateFleet, type Journey } from './journey.ts';
import { adaptiveSchedule } from './policies.ts';
import { measure, type Metrics } from './report.ts';
import { simulate, type FleetSlots, type Policy } from './simulate.ts';
import { WORLDS } from './worlds.ts';

const MINUTE = 60_000;
const HISTORY_SEED_OFFSET = 1_000_003; // as run.ts

export interface Lever {
  name: string;
  policy?: Partial<PollPolicy>;
  rareEarlyShare?: number;
}

/** Each lever alone, against the schedule's defaults (first row). */
export const LEVERS: readonly Lever[] = [
  { name: 'defaults' },
  { name: 'estimated day: awaiting scan every 60 min', policy: { awaitingScanIntervalMs: 60 * MINUTE } },
  { name: 'estimated day: awaiting scan every 30 min', policy: { awaitingScanIntervalMs: 30 * MINUTE } },
  { name: 'pickups: every 30 min in hours', policy: { pickupDenseIntervalMs: 30 * MINUTE } },
  { name: 'pickups: every 60 min in hours', policy: { pickupDenseIntervalMs: 60 * MINUTE } },
  { name: 'dense start: 3% quantile', rareEarlyShare: 0.03 },
  { name: 'dense start: 5% quantile', rareEarlyShare: 0.05 },
  { name: 'dense start: 6% quantile', rareEarlyShare: 0.06 },
];

/**
 * Combinations. Issue 30 retired the knobs that only this table turned (the estimated day's late-morning
 * end and 09:00 start, the day before's morning look, the watch's 11:00 look, the no-scan cadence): the
 * world family showed them spending late share it does not have, so production no longer carries them.
 */
export const COMBINATIONS: readonly Lever[] = [
  {
    name: '30-min awaiting + dense start 5%',
    policy: { awaitingScanIntervalMs: 30 * MINUTE },
    rareEarlyShare: 0.05,
  },
];

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '42' },
    packages: { type: 'string', default: '10000' },
    only: { type: 'string' },
    combinations: { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const packages = Number(values.packages);
const only = values.only?.split(',');

const fleets = WORLDS.map((world) => generateFleet({ packages, seed, labelDays: 14, ...world.fleet }));
// The fleet's past, learned once per world under the defaults (a lever moves it little).
const histories: FleetSlots[] = WORLDS.map((world) => {
  const past = generateFleet({ packages, seed: seed + HISTORY_SEED_OFFSET, labelDays: 14, ...world.fleet });
  return simulate(past, adaptiveSchedule, { seed: seed + HISTORY_SEED_OFFSET, ...world.simulation }).learnedSlots;
});

const leverPolicy =
  (lever: Lever): Policy =>
  (state, now, { hours }) =>
    nextPoll(state, now, { deliveryHours: hours.delivery, pickupHours: hours.pickup, policy: lever.policy ?? {} });

const runLever = (lever: Lever): Metrics[] =>
  WORLDS.map((world, w) =>
    measure(
      world.name,
      'world',
      fleets[w] as Journey[],
      simulate(fleets[w]!, leverPolicy(lever), {
        seed,
        ...world.simulation,
        history: histories[w]!,
        ...(lever.rareEarlyShare === undefined ? {} : { rareEarlyShare: lever.rareEarlyShare }),
      }),
    ),
  );

const f1 = (x: number): string => (x >= 0 ? '+' : '') + x.toFixed(2);
const rate = (calls: number, late: number): string =>
  Math.abs(late) < 0.05
    ? Math.abs(calls) < 0.05
      ? '—'
      : calls < 0
        ? 'free'
        : 'pure cost'
    : (-calls / late).toFixed(2);

const levers = [...LEVERS, ...(values.combinations ? COMBINATIONS : [])].filter(
  (l, i) => i === 0 || !only || only.some((o) => l.name.includes(o)),
);
const base = runLever(levers[0]!);
const worst = WORLDS.reduce((w, _, i) => (base[i]!.callsPerDelivered > base[w]!.callsPerDelivered ? i : w), 0);
process.stdout.write(
  `seed ${seed}, ${packages} packages; defaults: base ${base[0]!.callsPerDelivered.toFixed(2)} calls, ${(100 * base[0]!.lateShare).toFixed(2)}% late; ` +
    `worst (${WORLDS[worst]!.name}) ${base[worst]!.callsPerDelivered.toFixed(2)} calls, ${(100 * base[worst]!.lateShare).toFixed(2)}% late\n\n`,
);
process.stdout.write(
  '| lever | base Δcalls | base Δlate pp | worst Δcalls | worst Δlate pp | calls saved per late pp (worst) | max calls (world) | max late % | max p95 | max lag h |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n',
);
for (const lever of levers) {
  const rows = lever === levers[0] ? base : runLever(lever);
  const d = (i: number) => ({
    calls: rows[i]!.callsPerDelivered - base[i]!.callsPerDelivered,
    late: 100 * (rows[i]!.lateShare - base[i]!.lateShare),
  });
  const b = d(0);
  const x = d(worst);
  const maxCalls = rows.reduce((m, r) => (r.callsPerDelivered > m.callsPerDelivered ? r : m));
  const maxLate = Math.max(...rows.map((r) => r.lateShare));
  const maxP95 = Math.max(...rows.map((r) => r.lagP95Minutes));
  const maxLag = Math.max(...rows.map((r) => r.lagMaxMinutes));
  process.stdout.write(
    `| ${lever.name} | ${f1(b.calls)} | ${f1(b.late)} | ${f1(x.calls)} | ${f1(x.late)} | ${rate(x.calls, x.late)} | ${maxCalls.callsPerDelivered.toFixed(2)} (${maxCalls.name}) | ${(100 * maxLate).toFixed(2)} | ${maxP95.toFixed(1)} | ${(maxLag / 60).toFixed(1)} |\n`,
  );
}
