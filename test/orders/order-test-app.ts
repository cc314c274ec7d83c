import { formatVerifier } from '../../src/carriers/format-verifier.ts';
import type { TestClock } from '../support/clock.ts';
import { forFile } from '../support/for-file.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts';

/**
 * The file's test app (on `clock` when given) and one store account. Tracking numbers are checked by
 * format only: asking the carrier is covered by test/tracking; here the order API's rules are under test.
 */
export function orderTestAppForFile(
  use: (started: { app: TestApp; store: TestAccount }) => void,
  clock?: TestClock,
): void {
  forFile(
    async () => {
      const app = await startTestApp({ verifier: formatVerifier, ...(clock ? { now: clock.now } : {}) });
      return { app, store: await app.createAccount() };
    },
    use,
    ({ app }) => app.close(),
  );
}
