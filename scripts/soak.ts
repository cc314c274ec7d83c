/**
 * `npm run soak [-- --seconds N]` (issue 13): the whole system on real processes under steady
 * traffic with faults injected, then a check that nothing was lost, nothing was sent twice and
 * memory stayed flat. See docs/operations.md ("Soak").
 *
 * This file is the supervisor (issue 26). The soak itself (scripts/soak/run.ts) runs as a child in a
 * process group of its own, and this process only waits, so nothing the soak does can stop it from
 * keeping its promises:
 * - a hard deadline of the run's length plus a fixed margin; past it, the message names the phase
 *   the run was in and shows what each of its processes was blocked in;
 * - a child stuck between fork and exec (what blocked issue 26's run for ever: see
 *   membersStuckBeforeExec) is killed after a few seconds, so the spawn that made it returns;
 * - whatever the run started is stopped when it ends, fails, hangs, or when this process gets
 *   SIGINT, SIGTERM or SIGHUP: the group (web, workers, redis-server) by signal, and what left the
 *   group (the throw-away PostgreSQL) from the custody file the run writes (scripts/soak/custody.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CUSTODY_FILE_ENV, lastPhase, readCustody, releaseCustody } from './soak/custody.ts';
import { describeProcessGroup, membersStuckBeforeExec, signalGroup, waitForGroupToEnd } from './soak/group.ts';
import { hardDeadlineMs, parseSoakOptions } from './soak/options.ts';

const args = process.argv.slice(2);
const deadlineMs = hardDeadlineMs(parseSoakOptions(args));
const custodyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-soak-custody-'));
const custodyFile = path.join(custodyDir, 'custody.jsonl');
const say = (line: string) => process.stderr.write(`[soak supervisor] ${line}\n`);

const run = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'soak/run.ts'), ...args], {
  stdio: 'inherit',
  detached: true,
  env: { ...process.env, [CUSTODY_FILE_ENV]: custodyFile },
});
const group = run.pid!;
say(`run ${group} started; hard deadline ${deadlineMs / 1000} s`);

let ending = false;
/** Stops the group (SIGTERM, then SIGKILL), then what left it, then exits with `code`. */
async function end(code: number, reason?: string): Promise<never> {
  if (ending) return new Promise<never>(() => {});
  ending = true;
  clearInterval(watchdog);
  if (reason) {
    const where = lastPhase(readCustody(custodyFile)) ?? 'starting';
    say(`FAIL: ${reason}; the run was at: ${where}`);
    for (const line of describeProcessGroup(group)) say(`  ${line}`);
  }
  signalGroup(group, 'SIGTERM');
  if (!(await waitForGroupToEnd(group, 10_000))) {
    signalGroup(group, 'SIGKILL');
    if (!(await waitForGroupToEnd(group, 5_000))) say(`process group ${group} still has members after SIGKILL`);
  }
  releaseCustody(readCustody(custodyFile));
  fs.rmSync(custodyDir, { recursive: true, force: true });
  process.exit(code);
}

/** A fork that has not become its program by then is stuck (a healthy one takes milliseconds). */
const STUCK_BEFORE_EXEC_MS = 5_000;
const stuckSince = new Map<number, number>();
const watchdog = setInterval(() => {
  const stuck = new Set(membersStuckBeforeExec(group));
  for (const pid of stuckSince.keys()) if (!stuck.has(pid)) stuckSince.delete(pid);
  for (const pid of stuck) {
    const since = stuckSince.get(pid) ?? Date.now();
    stuckSince.set(pid, since);
    if (Date.now() - since < STUCK_BEFORE_EXEC_MS) continue;
    say(
      `pid ${pid} was stuck between fork and exec for ${STUCK_BEFORE_EXEC_MS / 1000} s, blocking its parent's spawn; killed it so the spawn fails instead of hanging`,
    );
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
    stuckSince.delete(pid);
  }
}, 1000);

const deadline = setTimeout(() => void end(1, `hard deadline of ${deadlineMs / 1000} s passed`), deadlineMs);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.once(signal, () => void end(128 + os.constants.signals[signal], `${signal} received`));
run.once('exit', (code, signal) => {
  clearTimeout(deadline);
  // The run stopped its own processes; what is left (after a crash of the run) is stopped here.
  void end(code ?? 128 + os.constants.signals[signal!]);
});
