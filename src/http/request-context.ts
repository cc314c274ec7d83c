import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';

declare module 'koa' {
  interface DefaultContext {
    log: Logger;
  }
}

/**
 * The uuid in /record/{uuid} and /watch/{uuid} is the only key to those pages; logs must not hold
 * it. Everything else in a path is an id that needs credentials to use.
 */
export function maskCapabilities(path: string): string {
  return path.replace(/^\/(record|watch)\/[^/]+/, '/$1/:uuid');
}

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new one), echoes
 * it, binds a child logger to it, and writes one access-log line per request.
 */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.log = logger.child({ requestId });
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.log.info(
        {
          method: ctx.method,
          path: maskCapabilities(ctx.path),
          status: ctx.status,
          durationMs: Math.round(performance.now() - started),
          accountId: ctx.state.account?.id,
        },
        'request',
      );
    }
  };
}
