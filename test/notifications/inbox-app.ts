import type { RunningWorkers, WorkerOptions } from '../../jobs/start-workers.ts';
import { forFile } from '../support/for-file.ts';
import { startMailServer } from '../support/mail-server.ts';
import type { MailServer } from '../support/mail-server-for-file.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';

export interface InboxApp {
  app: TestApp;
  /** The in-process SMTP server the app sends to: the inbox the test reads. */
  mail: MailServer;
  workers: RunningWorkers;
}

/**
 * For the file's tests: a real SMTP server, the test app sending to it (`overrides`; their `env` over
 * SMTP_URL) and the app's workers running (`workerOptions`), as in production; stopped after the
 * tests, workers first and the inbox last.
 */
export function inboxAppForFile(
  overrides: Parameters<typeof startTestApp>[0],
  workerOptions: WorkerOptions,
  use: (started: InboxApp) => void,
): void {
  forFile(
    async () => {
      const mail = await startMailServer();
      const app = await startTestApp({ ...overrides, env: { SMTP_URL: mail.url, ...overrides?.env } });
      return { mail, app, workers: await startTestWorkers(app.services, workerOptions) };
    },
    use,
    async ({ mail, app, workers }) => {
      await workers.close();
      await app.close();
      await mail.close();
    },
  );
}
