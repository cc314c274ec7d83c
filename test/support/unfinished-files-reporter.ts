import fs from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Names the test files a run never finished. When the process running a file dies (a native crash,
 * the kernel's OOM killer, a stray signal), vitest's summary says only "Worker exited unexpectedly":
 * the file is neither passed nor failed, so it is missing from every list. CI once failed that way
 * with no way to tell which file it was; this line is what the next such failure needs.
 */
export default class UnfinishedFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    // Whatever state vitest gives the file itself, a test still pending at the end never ran to its end.
    const lines = testModules.flatMap((module) => {
      const tests = [...module.children.allTests()];
      const done = tests.filter((test) => test.result().state !== 'pending').length;
      const unfinished = module.state() === 'queued' || module.state() === 'pending' || done < tests.length;
      return unfinished
        ? [`  ${module.relativeModuleId}: ${done} of ${tests.length} tests reported before it stopped`]
        : [];
    });
    if (lines.length === 0) return;
    process.stderr.write(`\nTest files that never finished (their worker process died):\n${lines.join('\n')}\n`);
    // .ci/run reads the list to run those files once more (see there why).
    const out = process.env.UNFINISHED_FILES_OUT;
    if (out)
      fs.writeFileSync(
        out,
        testModules
          .filter((module) => lines.some((line) => line.startsWith(`  ${module.relativeModuleId}:`)))
          .map((module) => `${module.relativeModuleId}\n`)
          .join(''),
      );
  }
}
