import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { HttpError } from './errors.ts';

/**
 * How long a request body may take to arrive, and how many may arrive at once (issue 13, slow
 * bodies): 300 connections trickling 5 MB webhook bodies held 300 sockets and a gigabyte of memory.
 * Each small body (JSON, webhooks, forms) must arrive within `deadlineMs`; beyond `maxInFlight`
 * bodies being read at once, new ones are turned away at once with 503. Video uploads stream to
 * storage and are bounded by the server's request timeout instead.
 */
export interface BodyReadLimits {
  deadlineMs: number;
  maxInFlight: number;
}

export const DEFAULT_BODY_READ_LIMITS: BodyReadLimits = { deadlineMs: 10_000, maxInFlight: 128 };

interface BodyReads extends BodyReadLimits {
  inFlight: { count: number };
}

/** Mounted once per app: the limits, and the one in-flight count every reader shares. */
export function bodyReadLimits(limits: BodyReadLimits) {
  const reads: BodyReads = { ...limits, inFlight: { count: 0 } };
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.bodyReads = reads;
    await next();
  };
}

/**
 * Reads a small body whole, as text, within the app's deadline. Errors are the JSON answers a
 * client can act on: 413 over `limitBytes`, 408 past the deadline (and the connection is closed,
 * so a silent client lets go of its socket), 503 when too many bodies are in flight, 400 when the
 * client went away mid-body.
 */
export async function readBodyText(ctx: Context, limitBytes: number, tooLarge: string): Promise<string> {
  return (await readBody(ctx, limitBytes, tooLarge, 'utf8')) as string;
}

/** `readBodyText` for a small binary body (a poster image), under the same deadline and cap. */
export async function readBodyBytes(ctx: Context, limitBytes: number, tooLarge: string): Promise<Buffer> {
  return (await readBody(ctx, limitBytes, tooLarge, null)) as Buffer;
}

async function readBody(
  ctx: Context,
  limitBytes: number,
  tooLarge: string,
  encoding: 'utf8' | null,
): Promise<string | Buffer> {
  const reads = (ctx.state.bodyReads as BodyReads | undefined) ?? {
    ...DEFAULT_BODY_READ_LIMITS,
    inFlight: { count: 0 },
  };
  if (reads.inFlight.count >= reads.maxInFlight) {
    throw new HttpError(503, 'service_unavailable', 'Too many request bodies are arriving at once. Retry shortly.', {
      'Retry-After': '1',
      Connection: 'close',
    });
  }
  reads.inFlight.count++;
  let timer: NodeJS.Timeout | undefined;
  const reading: Promise<string | Buffer> = getRawBody(ctx.req, {
    limit: limitBytes,
    ...(encoding ? { encoding } : {}),
    length: ctx.get('Content-Length') || undefined,
  });
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new HttpError(
            408,
            'request_timeout',
            `The request body did not arrive within ${reads.deadlineMs / 1000} s. Send it again.`,
            { Connection: 'close' },
          ),
        ),
      reads.deadlineMs,
    );
  });
  try {
    return await Promise.race([reading, deadline]);
  } catch (error) {
    if (error instanceof HttpError) {
      // The reader stays attached until the socket closes (Connection: close after our answer);
      // what it rejects with then is of no interest.
      reading.catch(() => undefined);
      throw error;
    }
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new HttpError(413, 'payload_too_large', tooLarge);
    if (type === 'request.aborted')
      throw new HttpError(400, 'invalid_request', 'The request body was not completely received.');
    throw new HttpError(400, 'invalid_request', 'The request body could not be read.');
  } finally {
    clearTimeout(timer);
    reads.inFlight.count--;
  }
}
