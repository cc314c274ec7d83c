import type { Context, Next } from 'koa';

/** The methods any route of ours answers; everything else is refused before it reaches them. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * An unknown method (PROPFIND, MKCOL, …) gets 405 with `Allow` and the usual JSON error, before authentication
 * and routing. It is a scanner's noise, not our fault, so it is logged at debug: anyone can send it
 * to every path, and it must not fill the error log.
 */
export async function refuseUnknownMethods(ctx: Context, next: Next): Promise<void> {
  if (KNOWN_METHODS.has(ctx.method)) return next();
  ctx.log.debug({ method: ctx.method.slice(0, 32) }, 'unknown HTTP method refused');
  ctx.status = 405;
  ctx.set('Allow', [...KNOWN_METHODS].join(', '));
  // A 405 is cacheable by default (RFC 9110 §15.5.6); this one is about the request, not the URL.
  ctx.set('Cache-Control', 'no-store');
  const requestId = ctx.state.requestId as string | undefined;
  ctx.body = {
    error: {
      type: 'method_not_allowed',
      message: `The method ${ctx.method.slice(0, 32)} is not supported. Use one of ${[...KNOWN_METHODS].join(', ')}.`,
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}
