import type { Context, Next } from 'koa';
import { z } from 'zod';
import {
  ConflictError,
  DomainError,
  GoneError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../errors.ts';
import { isDependencyUnavailable } from '../db/unavailable.ts';
import { HttpError } from './errors.ts';

/** Every error answer's body; the OpenAPI document's `Error` schema is generated from it. */
export const errorBodyJson = z.object({
  error: z.object({
    type: z.string().meta({ examples: ['validation_error'] }),
    message: z.string().meta({ description: 'For people: says what to change.' }),
    fields: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Validation errors: one message per offending field (or header / query parameter).' }),
    request_id: z.string().optional().meta({ description: 'Quote it to support; it is in our logs.' }),
  }),
});
type ErrorBody = z.output<typeof errorBodyJson>;

/**
 * The one place errors become HTTP responses: `{"error":{"type","message","fields"?}}`.
 * Anything unexpected is logged with its stack and answered 500 without internals; a database
 * or Redis outage is 503 so clients retry, logged at warn in one line.
 */
export async function errorHandler(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new HttpError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}.`);
    }
  } catch (error) {
    const { status, body, headers } = errorAnswer(error, ctx);
    ctx.status = status;
    ctx.set(headers);
    ctx.body = body;
  }
}

/**
 * What an error answers, logged as errorHandler logs it. For the few handlers that write their own
 * response (the resumable upload protocol, src/videos/uploads/resumable-uploads.ts) and so never reach it.
 */
export function errorAnswer(
  error: unknown,
  ctx: Context,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const answer = present(error, ctx);
  // An outage (PostgreSQL restarting, Redis or Shopify unreachable) is not a bug: one warn line
  // per request that met it, without a stack trace, so the error log stays for real faults.
  // Our own load shedding (an HttpError 503, e.g. too many bodies at once) is not an outage.
  if (answer.status === 503 && error instanceof HttpError)
    ctx.log.warn({ refused: error.message }, 'request refused: the service is busy');
  else if (answer.status === 503)
    ctx.log.warn({ unavailable: oneLine(error) }, 'request failed: a dependency is unavailable');
  else if (answer.status >= 500) ctx.log.error({ err: error }, 'request failed');
  return answer;
}

function present(error: unknown, ctx: Context): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const requestId = ctx.state.requestId as string | undefined;
  const body = (type: string, message: string, fields?: Record<string, string>): ErrorBody => ({
    error: {
      type,
      message,
      ...(fields && Object.keys(fields).length > 0 ? { fields } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    },
  });

  if (error instanceof HttpError)
    return { status: error.status, body: body(error.type, error.message), headers: error.headers };
  if (error instanceof DomainError) {
    const status = statusOf(error);
    const fields = error instanceof ValidationError ? error.fields : undefined;
    // A dependency that is down (Shopify, a carrier): worth retrying shortly, and the client is told when.
    const headers: Record<string, string> = error instanceof ServiceUnavailableError ? { 'Retry-After': '5' } : {};
    return { status, body: body(error.type, error.message, fields), headers };
  }
  // Koa / @koa/router's own client errors (405 Method Not Allowed, 501): keep their status.
  const status = (error as { status?: unknown; expose?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose) {
    return {
      status,
      body: body(status === 405 ? 'method_not_allowed' : 'invalid_request', (error as Error).message),
      headers: {},
    };
  }
  // PostgreSQL's data exceptions (SQLSTATE class 22): a value it cannot store — a NUL character,
  // invalid encoding, a date or number out of its range. The schemas bound what they can; whatever
  // still gets this far came from the request, so it is the client's to fix, not a 500.
  const dataException = dataExceptionCode(error);
  if (dataException) {
    ctx.log.info({ sqlState: dataException }, 'request refused by a database data check');
    return {
      status: 400,
      body: body(
        'invalid_request',
        dataException === '22021' || dataException === '22P05'
          ? 'The request contains characters that cannot be stored (for example a NUL character).'
          : 'A value in the request is outside what can be stored (for example a date or number out of range).',
      ),
      headers: {},
    };
  }
  if (isDependencyUnavailable(error)) {
    return {
      status: 503,
      body: body('service_unavailable', 'A dependency is unavailable. Retry shortly.'),
      headers: { 'Retry-After': '5' },
    };
  }
  return {
    status: 500,
    body: body('internal_error', 'Something went wrong on our side. It has been logged.'),
    headers: {},
  };
}

function statusOf(error: DomainError): number {
  if (error instanceof ValidationError) return 422;
  if (error instanceof GoneError) return 410;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof ServiceUnavailableError) return 503;
  return 500;
}

/** `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432`: the code and the first line of the message, nothing else. */
function oneLine(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
  const name = error instanceof Error ? error.name : 'Error';
  return `${typeof code === 'string' ? code : name}: ${message || 'no message'}`;
}

/** The SQLSTATE of a PostgreSQL data exception (class 22), else null. */
function dataExceptionCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code) ? code : null;
}
