import type { TestClock } from '../support/clock.ts';
import { forFile } from '../support/for-file.ts';
import { startMailServer } from '../support/mail-server.ts';
import type { TestAccount } from '../support/test-app.ts';
import { startVideoTestApp, type VideoTestApp } from '../videos/video-test-app.ts';

export type MailServer = Awaited<ReturnType<typeof startMailServer>>;

/**
 * The thank-you tests' world for the file: a real SMTP server, the video app sending its e-mails
 * through it with this undo window, and the store "Maple & Thread"; closed after the tests, the
 * app before the server it sends to.
 */
export function thanksTestAppForFile(
  options: { queue: 'bullmq' | 'manual'; sendDelaySeconds: number; clock?: TestClock },
  use: (started: { app: VideoTestApp; store: TestAccount; mail: MailServer }) => void,
): void {
  forFile(
    async () => {
      const mail = await startMailServer();
      const app = await startVideoTestApp({
        queue: options.queue,
        ...(options.clock ? { clock: options.clock } : {}),
        env: { SMTP_URL: mail.url, THANKS_SEND_DELAY_SECONDS: String(options.sendDelaySeconds) },
      });
      return { app, store: await app.createAccount('Maple & Thread'), mail };
    },
    use,
    async ({ app, mail }) => {
      await app.close();
      await mail.close();
    },
  );
}
