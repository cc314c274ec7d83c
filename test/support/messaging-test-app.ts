import { afterAll, beforeAll, beforeEach } from 'vitest';
import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import { TestClock } from './clock.ts';
import { startFakeSmsApi } from './fake-sms.ts';
import { startMailServer } from './mail-server.ts';
import { startTestApp, type TestAccount, type TestApp } from './test-app.ts';

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

/**
 * The file's messaging app and one store account: started before its tests, stopped after them, the
 * inbox and the SMS list emptied before each; `use` receives them to assign to the file's variables.
 */
export function messagingTestAppForFile(
  storeName: string,
  use: (
    started: { messaging: MessagingTestApp; store: TestAccount } & Pick<MessagingTestApp, 'app' | 'mail' | 'sms'>,
  ) => void,
  overrides: Parameters<typeof startTestApp>[0] = {},
): void {
  let messaging: MessagingTestApp | undefined;
  beforeAll(async () => {
    messaging = await startMessagingTestApp(overrides);
    const { app, mail, sms } = messaging;
    use({ messaging, app, mail, sms, store: await app.createAccount(storeName) });
  });
  afterAll(() => messaging?.close());
  beforeEach(() => messaging?.clearMessages());
}

/**
 * messagingTestAppForFile on a test clock of its own (the app's and the SMS fake's): time stands still
 * unless a test moves it to reach a send's due time, a retry or a reminder. Returns that clock.
 */
export function messagingTestAppOnClockForFile(
  storeName: string,
  use: Parameters<typeof messagingTestAppForFile>[1],
): TestClock {
  const clock = new TestClock();
  messagingTestAppForFile(storeName, use, { now: clock.now });
  return clock;
}
