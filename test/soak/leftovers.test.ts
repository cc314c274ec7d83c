import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findLeftovers, stopLeftovers } from '../../scripts/leftovers.ts';
import { waitForExit } from '../support/processes.ts';

/**
 * scripts/leftovers.ts finds what a run left behind by where it lives, not by its parent — what
 * `.ci/run` sweeps with and what test/soak/stall.test.ts looks for. Shown finding real processes
 * (so an empty answer elsewhere means something), and sparing everything else.
 */
let marker: string;
afterEach(() => {
  stopLeftovers(findLeftovers(marker));
  fs.rmSync(marker, { recursive: true, force: true });
});

describe('leftovers', () => {
  it('finds processes by TMPDIR and by working directory, detached from any parent, and stops them', async () => {
    marker = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-leftovers-test-'));
    const sleeper = (options: { env?: NodeJS.ProcessEnv; cwd?: string; args?: string[] }) =>
      spawn('sleep', options.args ?? ['600'], {
        detached: true,
        stdio: 'ignore',
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
    const byTmpdir = sleeper({ env: { ...process.env, TMPDIR: path.join(marker, 'tmp') } });
    const byCwd = sleeper({ cwd: marker });
    const elsewhere = sleeper({});
    try {
      const found = findLeftovers(marker).map((leftover) => leftover.pid);
      expect(found).toEqual(expect.arrayContaining([byTmpdir.pid, byCwd.pid]));
      expect(found).not.toContain(elsewhere.pid);
      // Not the caller, nor its parents: they run there too when .ci/run sweeps.
      expect(found).not.toContain(process.pid);

      stopLeftovers(findLeftovers(marker));
      await waitForExit(byTmpdir, 5_000);
      await waitForExit(byCwd, 5_000);
      expect(findLeftovers(marker)).toEqual([]);
      expect(elsewhere.exitCode).toBeNull();
    } finally {
      elsewhere.kill('SIGKILL');
    }
  });
});
