import { forFile } from '../support/for-file.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';

/**
 * The file's app as `npm start` runs it (development credentials, the Shopify sandbox) with its
 * workers, for tests that wait on jobs: started before the file's tests, workers stopped before the app.
 */
export function testAppWithWorkersForFile(use: (app: TestApp) => void): void {
  forFile(
    async () => {
      const app = await startTestApp();
      return { app, workers: await startTestWorkers(app.services) };
    },
    ({ app }) => use(app),
    async ({ app, workers }) => {
      await workers.close();
      await app.close();
    },
  );
}
