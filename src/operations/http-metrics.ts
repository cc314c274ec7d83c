import type { Context, Next } from 'koa';
import type { Metrics } from './metrics.ts';
import { isUnder } from '../http/outside.ts';

/**
 * Times every request into `doorstep_http_request_duration_seconds`, labelled with the route
 * *pattern* @koa/router matched (`/v1/orders/:id`), never the raw path: /record/{uuid} and
 * /watch/{uuid} carry capabilities, and raw paths would make unbounded series. Requests no router
 * matched are `unmatched`; apps mounted whole (the sandboxes, the queue dashboard) are their prefix.
 */
export function httpMetrics(metrics: Metrics, mountedPrefixes: readonly string[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const stop = metrics.httpRequestDuration.startTimer();
    let failed = false;
    try {
      await next();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // A response handed to another app (ctx.respond = false) has its status on the raw response.
      const status = failed ? 500 : ctx.respond === false ? ctx.res.statusCode : ctx.status;
      stop({ method: ctx.method, route: routeLabel(ctx, mountedPrefixes), status: String(status) });
    }
  };
}

export function routeLabel(
  ctx: Pick<Context, 'path'> & { _matchedRoute?: string | RegExp },
  prefixes: readonly string[],
): string {
  const mounted = prefixes.find((prefix) => isUnder(ctx.path, prefix));
  if (mounted) return mounted;
  const matched = ctx._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}
