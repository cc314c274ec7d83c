import Router from '@koa/router';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import { isUnder } from '../http/outside.ts';
import type { Middleware } from 'koa';
import type { OperatorCredentials } from '../config.ts';
import type { Metrics } from './metrics.ts';
import { operatorAuth } from './operator-auth.ts';
import { checkReadiness, type ReadinessDeps } from './readiness.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

export interface OperationsDeps {
  metrics: Metrics;
  readiness: ReadinessDeps;
  operator: OperatorCredentials | null;
}

/**
 * `/healthz` (the process is up: answers without touching PostgreSQL or Redis, so a slow database
 * never gets a live process restarted), `/readyz` (may it take traffic: ./readiness.ts) and
 * `/metrics` (Prometheus text, operator credentials). Served by the web app and by the worker's
 * own small server alike.
 */
export function operationsRoutes(deps: OperationsDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const readiness = await checkReadiness(deps.readiness);
    const failing = Object.entries(readiness.checks)
      .filter(([, check]) => check.status !== 'ok')
      .map(([part]) => part);
    ctx.status = failing.length === 0 ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = failing.length === 0 ? readiness : { ...readiness, failing };
  });
  router.get('/metrics', operatorAuth(deps.operator), async (ctx) => {
    ctx.set('Content-Type', deps.metrics.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.metrics.text();
  });
  return router;
}

/**
 * bull-board at /admin/queues behind the operator's credentials, listing every queue given (all of
 * src/queues/queues.ts, the per-carrier tracking queues included). Its page and assets come from
 * the @bull-board/ui package on disk, no CDN. It is a Koa app of its own with its own body parser
 * and error handling, so it sits outside the /v1 authentication; our error handler still answers
 * a refused login with JSON.
 */
export function queueDashboard(queues: readonly Queue[], operator: OperatorCredentials | null): Middleware {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Doorstep queues' } },
  });
  const board = serverAdapter.registerPlugin();
  const authenticate = operatorAuth(operator);
  return async (ctx, next) => {
    if (!isUnder(ctx.path, QUEUE_DASHBOARD_PATH)) return next();
    await authenticate(ctx, async () => {
      await board(ctx, next);
      if (ctx.response.is('html') && typeof ctx.body === 'string') {
        ctx.body = withoutExternalFonts(ctx.body);
        // The page is the operators' own: nothing on it may load from, or send to, another origin.
        ctx.set('Content-Security-Policy', DASHBOARD_CSP);
      }
    });
  };
}

const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // bull-board's loading screen and React's style attributes are inline.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * bull-board's page links Google Fonts; the operators' dashboard must not call a CDN (nor tell
 * Google who looks at it). Without the link the page falls back to its sans-serif font.
 */
export function withoutExternalFonts(html: string): string {
  return html.replace(/<link[^>]+href="https:\/\/fonts\.(googleapis|gstatic)\.com[^"]*"[^>]*>\s*/g, '');
}
