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
  return (ctx, next) => (isUnder(ctx.path, prefix) ? next() : middleware(ctx, next));
}

/**
 * Whether a path is `prefix` or below it, without case: the routers match paths without case
 * (@koa/router's default), so `/V1/orders` reaches the orders routes, and a check that minded case let
 * it skip authentication, the rate limit and `no-store` on the way (API probe). The checks that guard
 * something (API auth, no-store, the operators' dashboard, route labels) ask it here; the sandbox's and
 * the webhook intake's exact-path checks mind case, which only sends a misspelt path to a 404.
 */
export function isUnder(path: string, prefix: string): boolean {
  const lower = path.toLowerCase();
  const under = prefix.toLowerCase();
  return lower === under || lower.startsWith(`${under}/`);
}
