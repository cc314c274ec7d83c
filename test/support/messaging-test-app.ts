import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import { startFakeSmsApi } from './fake-sms.ts';
import { startMailServer } from './mail-server.ts';
import { startTestApp, type TestApp } from './test-app.ts';

export type MessagingTestApp = Awaited<ReturnType<typeof startMessagingTestApp>>;

/**
 * A test app whose messages really leave: e-mail to a real in-process SMTP server and SMS to the
 * Twilio-format fake, both started here. Tracking numbers are checked by format only (no carrier).
 */
export async function startMessagingTestApp(overrides: Parameters<typeof startTestApp>[0] = {}) {
  const mail = await startMailServer();
  const sms = await startFakeSmsApi(undefined, overrides.now ? { now: overrides.now } : {});
  const app: TestApp = await startTestApp({
    verifier: formatVerifier,
    ...overrides,
    env: { SMTP_URL: mail.url, ...sms.env, ...overrides.env },
  });
  return {
    app,
    mail,
    sms,
    /** Forgets what arrived so far: each test counts its own messages. */
    clearMessages(): void {
      mail.messages.length = 0;
      sms.messages.length = 0;
    },
    async close(): Promise<void> {
      await app.close();
      await mail.close();
      await sms.close();
    },
  };
}
