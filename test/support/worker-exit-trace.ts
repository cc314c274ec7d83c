import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Runs in every test worker (vitest `setupFiles`), so that a worker that dies says how and in which
 * file; vitest itself reports only "Worker exited unexpectedly" (it drops the exit code and signal).
 * - A non-zero exit (a `process.exitCode` left set, e.g. by an embedded library's exit path) is
 *   written on stderr with the file.
 * - A terminating signal that can be caught (a stray `kill` of our process group) is written, then
 *   re-raised so the worker still dies of it.
 * A SIGKILL (the OOM killer) or a native crash cannot be caught: then the file named by
 * unfinished-files-reporter.ts and the absence of these lines say so; V8's fatal errors print themselves.
 *
 * The file name lives on `process`, not in this module: a worker may evaluate this module once per
 * test file, while the listeners must be registered once per process.
 */
const trace = process as NodeJS.Process & { doorstepRunningTestFile?: string | null };

beforeAll(() => {
  const file = expect.getState().testPath;
  trace.doorstepRunningTestFile = file ? path.relative(process.cwd(), file) : '(unknown file)';
});
afterAll(() => {
  trace.doorstepRunningTestFile = null;
});

const say = (what: string) =>
  process.stderr.write(
    `\n[vitest worker ${process.pid}] ${what} while running ${trace.doorstepRunningTestFile ?? 'no test file'}\n`,
  );

if (trace.doorstepRunningTestFile === undefined) {
  trace.doorstepRunningTestFile = null;
  process.on('exit', (code) => {
    if (code !== 0) say(`exiting with code ${code}`);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      // Between files vitest itself may stop the worker this way: only a signal mid-file is news.
      if (trace.doorstepRunningTestFile) say(`received ${signal}`);
      process.kill(process.pid, signal);
    });
}
