import { expect } from 'vitest';
import type { RunningWorkers } from '../../jobs/start-workers.ts';
import { forFile } from '../support/for-file.ts';
import { startTestAppWithWorkers } from '../support/app-with-workers.ts';
import type { startTestApp, TestAccount, TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

/**
 * The tracking tests' app for the file with its workers (claiming, polling, dispatching) and one
 * store account; after the file the workers stop before the app. `use` receives them.
 */
export function trackingAppForFile(
  use: (started: { app: TestApp; workers: RunningWorkers; store: TestAccount }) => void,
  overrides: Parameters<typeof startTestApp>[0] = {},
): void {
  forFile(
    async () => {
      const started = await startTestAppWithWorkers(overrides);
      return { ...started, store: await started.app.createAccount() };
    },
    use,
    (started) => started.close(),
  );
}

/** Adds an event to a package in the app's carrier sandbox, as the carrier would record a scan. */
export async function scriptPackage(
  app: TestApp,
  carrier: string,
  trackingNumber: string,
  body: Record<string, unknown>,
): Promise<void> {
  const response = await fetch(`${app.baseUrl}/sandbox/carriers/${carrier}/packages/${trackingNumber}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

/** Waits until the order's status is delivered and returns the order as the API shows it. */
export function deliveredOrder(store: TestAccount, orderId: string, timeoutMs: number, what: string) {
  return eventually(
    async () => {
      const order = (await store.request('GET', `/v1/orders/${orderId}`)).body;
      return order.status === 'delivered' ? order : undefined;
    },
    timeoutMs,
    what,
  );
}
