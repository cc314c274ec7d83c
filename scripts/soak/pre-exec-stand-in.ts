import { spawnSync } from 'node:child_process';

/**
 * Test only (`--inject-stall fork`): a stand-in for issue 26's stall, a spawn whose forked child
 * never execs (scripts/soak/group.ts, membersStuckBeforeExec). The real one cannot be made on
 * demand — it needs another thread to hold a lock at the instant of the fork — so the stand-in
 * shows the supervisor the same two things: a child with the run's own executable and command line
 * that never goes on, and the run's only thread blocked waiting for it (`spawnSync` here, the read
 * inside `uv_spawn` there). Ends when the child is killed; says how it ended.
 */
export function standInForForkStuckBeforeExec(): string {
  const result = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, [STAND_IN_ENV]: '1' },
    stdio: 'ignore',
  });
  return `its child ended by ${result.signal ?? `exit code ${result.status}`}`;
}

const STAND_IN_ENV = 'DOORSTEP_SOAK_FORK_STAND_IN';

// The stand-in child: imported first by run.ts, so it blocks before the run does anything.
if (process.env[STAND_IN_ENV] === '1') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
