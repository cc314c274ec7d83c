import type { Next } from 'koa';

/**
 * Runs `middleware` only for requests outside `prefix`. Every router's middleware matches each of
 * its routes' patterns against every path it is handed; the public routers (operations, Shopify,
 * carrier and e-mail webhooks, the embedded admin) serve nothing under /v1, so an API request
 * skips them instead of paying for a dozen routers that cannot match (issue 11, per-request work).
 */
export function outside<C extends { path: string }>(
  prefix: string,
  middleware: (ctx: C, next: Next) => unknown,
): (ctx: C, next: Next) => unknown {
  return (ctx, next) => (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) ? next() : middleware(ctx, next));
}
