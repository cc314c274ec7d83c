import { forFile } from './for-file.ts';
import { startMailServer } from './mail-server.ts';

/** The in-process SMTP server a test reads as the inbox. */
export type MailServer = Awaited<ReturnType<typeof startMailServer>>;

/**
 * For the file's tests: a real SMTP server (the inbox), stopped after them. Apart from mail-server.ts,
 * which the bench and the soak import outside vitest.
 */
export function mailServerForFile(use: (mail: MailServer) => void): void {
  forFile(
    () => startMailServer(),
    use,
    (mail) => mail.close(),
  );
}
