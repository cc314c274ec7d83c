import Koa from 'koa';
import { controlErrors, controlRoutes } from './control.ts';
import { fedexRoutes } from './fedex.ts';
import { fedexAivRoutes } from './fedex-aiv.ts';
import { createSandboxState, type SandboxOptions, type SandboxState } from './state.ts';
import { upsRoutes } from './ups.ts';
import { upsTrackAlertRoutes } from './ups-track-alert.ts';
import { uspsRoutes } from './usps.ts';
import { uspsSubscriptionRoutes } from './usps-subscriptions.ts';

export interface CarrierSandbox {
  app: Koa;
  /** Packages, tokens, faults and counters, for in-process tests. */
  state: SandboxState;
  reset(): void;
}

/**
 * The fake UPS, FedEx and USPS APIs (under /sandbox/ups, /sandbox/fedex, /sandbox/usps, each
 * speaking its carrier's published wire format) plus the control API under /sandbox/carriers.
 * Point a real client's baseUrl at e.g. `http://127.0.0.1:PORT/sandbox/ups`.
 */
export function createCarrierSandbox(options: SandboxOptions = {}): CarrierSandbox {
  const state = createSandboxState(options);
  const app = new Koa();
  app.use(controlErrors);
  for (const router of [
    controlRoutes(state),
    upsRoutes(state),
    upsTrackAlertRoutes(state),
    fedexRoutes(state),
    fedexAivRoutes(state),
    uspsSubscriptionRoutes(state),
    uspsRoutes(state),
  ]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { error: { type: 'not_found', message: `No sandbox route for ${ctx.method} ${ctx.path}.` } };
  });
  return { app, state, reset: () => state.reset() };
}
