import type { RunningWorkers } from '../../jobs/start-workers.ts';
import { forFile } from './for-file.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import { startTestWorkers } from './workers.ts';

export interface TestAppWithWorkers {
  app: TestApp;
  workers: RunningWorkers;
  /** Stops the workers first (they hold the app's database and queues), then the app. */
  close(): Promise<void>;
}

/** The test app as `npm start` runs it: with its workers, for tests that wait on jobs. */
export async function startTestAppWithWorkers(
  overrides: Parameters<typeof startTestApp>[0] = {},
): Promise<TestAppWithWorkers> {
  const app = await startTestApp(overrides);
  const workers = await startTestWorkers(app.services);
  return {
    app,
    workers,
    async close() {
      await workers.close();
      await app.close();
    },
  };
}

/** The file's app with its workers: started before its tests, stopped after them; `use` receives them. */
export function testAppWithWorkersForFile(
  use: (started: TestAppWithWorkers) => void,
  overrides: Parameters<typeof startTestApp>[0] = {},
): void {
  forFile(
    () => startTestAppWithWorkers(overrides),
    use,
    (started) => started.close(),
  );
}
