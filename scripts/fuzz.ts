/**
 * `npm run fuzz [-- --runs N] [--seed S]`: the property-based fuzzing of test/fuzz/ with more runs
 * (and another seed) than CI's fixed, quick pass. A failure prints the counterexample and the seed
 * that reproduces it.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '2000' }, seed: { type: 'string' } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  process.stderr.write('--runs and --seed must be whole numbers, e.g. npm run fuzz -- --runs 5000 --seed 42\n');
  process.exit(2);
}
process.stdout.write(`fuzzing with ${runs} runs per property, seed ${seed}\n`);
const vitest = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest');
const result = spawnSync(vitest, ['run', 'test/fuzz'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_SEED: String(seed) },
});
process.exit(result.status ?? 1);
