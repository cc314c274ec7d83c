import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.ts';

declare module 'koa' {
  interface DefaultContext {
    log: Logger;
  }
}

/**
 * The uuid in /record/{uuid} and /watch/{uuid}, and the key in /thanks/{key}, are the only keys to
 * those pages; logs must not hold them. Everything else in a path is an id that needs credentials to
 * use — or personal data a client put where an id goes, which is masked too.
 */
export function maskCapabilities(path: string): string {
  return (
    path
      // Matched without case, as the routers match paths (/WATCH/{uuid} plays the video too).
      .replace(/^\/(record|watch)\/[^/]+/i, '/$1/:uuid')
      // The sender's page of the recipient's reply: its key alone opens the note and the reply video
      // (gift pages probe: it was logged in full).
      .replace(/^\/(thanks)\/[^/]+/i, '/$1/:key')
      // A client that puts an e-mail address or a phone number where an id goes (API probe:
      // GET /v1/orders/jane.doe@example.com was logged as sent): personal data never reaches a log.
      .split('/')
      .map((segment) => (/@|%40/i.test(segment) || /^(\+|%2B)\d{6,}$/i.test(segment) ? ':redacted' : segment))
      .join('/')
  );
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
