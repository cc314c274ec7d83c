import type { Context, Middleware, Next } from 'koa';

/**
 * Runs `middleware` only for requests outside `prefix`. Every router's middleware matches each of
 * its routes' patterns against every path it is handed; the public routers (operations, Shopify,
 * carrier and e-mail webhooks, the embedded admin) serve nothing under /v1, so an API request
 * skips them instead of paying for a dozen routers that cannot match (issue 11, per-request work).
 */
export function outside(prefix: string, middleware: Middleware): Middleware {
  return (ctx: Context, next: Next) =>
    ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) ? next() : middleware(ctx, next);
}
