import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/workers.ts';
import { freePort, projectRoot } from '../support/processes.ts';

/**
 * Issue 31, 6: `npm start` runs npm → sh → node (→ redis-server). A process manager that signals
 * only the process it started sends `kill -TERM <npm pid>`: npm ends, and before, node (still on
 * its port) and redis-server ran on. Now node follows npm out, in order, and stops redis-server.
 */
let group: number | null = null;
const dirs: string[] = [];
afterEach(() => {
  if (group !== null) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Nobody left: what the test wants.
    }
    group = null;
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Live (not zombie) processes of a process group, with their command names. */
function membersOf(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z')
        members.push(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

describe('npm start, when only npm is told to stop', () => {
  it('stops node and its redis-server too, within seconds, and frees the port', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-npm-parent-'));
    dirs.push(dataDir);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A group of its own, so the test can see what is left of it, and clean up whatever happens.
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_URL: base,
        REDIS_URL: '',
        CARRIER_SANDBOX: 'on',
        LOG_LEVEL: 'info',
      },
      stdio: 'ignore',
      detached: true,
    });
    group = npm.pid!;
    await eventually(
      async () => ((await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).ok ? true : undefined),
      120_000,
      'npm start to answer /healthz',
    );
    expect(membersOf(group)).toEqual(expect.arrayContaining(['redis-server']));

    process.kill(npm.pid!, 'SIGTERM');

    await eventually(
      async () => (membersOf(group!).length === 0 ? true : undefined),
      30_000,
      'every process of npm start to exit',
    );
    await expect(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 180_000);
});
