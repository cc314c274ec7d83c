import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../bench/support/children.ts';

// Tiny entry points in a temp dir: one that never ends (the tracking-storage hang, in small), one that prints and ends.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-children-'));
const hangs = path.join(dir, 'hangs.ts');
fs.writeFileSync(hangs, "process.stderr.write('working\\n');\nsetInterval(() => {}, 1_000);\n");
const ends = path.join(dir, 'ends.ts');
fs.writeFileSync(ends, "console.log('| a |');\n");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('runToEnd', () => {
  it('kills a step that passes its time limit and says so, with what it printed', async () => {
    const started = Date.now();
    await expect(runToEnd(hangs, [], {}, 3_000)).rejects.toThrow(/did not finish within 3 s and was stopped: working/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('returns what a step printed when it ends in time', async () => {
    await expect(runToEnd(ends, [], {}, 30_000)).resolves.toBe('| a |\n');
  });
});
