import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { HttpError } from './errors.ts';

/**
 * How long a request body may take to arrive, and how many — and how many bytes — may arrive at
 * once (issue 13, slow bodies; issue 31, 2 and 3): 300 connections trickling 5 MB webhook bodies
 * held 300 sockets and a gigabyte of memory, and one client's 300 connections took every slot.
 * - Each small body (JSON, webhooks, forms) must arrive within `deadlineMs`.
 * - At most `maxInFlight` bodies are read at once. Once half of them are taken, a client that
 *   holds `maxInFlightPerClient` already (its address; a webhook's claimed shop, since every shop's
 *   webhooks come from Shopify's addresses, and then its address at most half of all slots) is
 *   refused with 429, while everyone else still gets a slot: one abuser holds at most half of them.
 * - At most `maxBytesInFlight` bytes are held for bodies being read, counting each at its declared
 *   length (the cap of its route when it declares none): a body that would pass it is refused at
 *   once with 503, before any of it is buffered, and its bytes are let go when its read ends.
 * Video uploads stream to storage and are bounded by the server's request timeout instead.
 */
export interface BodyReadLimits {
  deadlineMs: number;
  maxInFlight: number;
  /** 0 = no per-client share (behind a proxy every client has the proxy's address). */
  maxInFlightPerClient: number;
  maxBytesInFlight: number;
}

export const DEFAULT_BODY_READ_LIMITS: BodyReadLimits = {
  deadlineMs: 10_000,
  maxInFlight: 128,
  maxInFlightPerClient: 16,
  maxBytesInFlight: 64 * 1024 * 1024,
};

/** What every reader of one app shares: the limits and what is in flight now. */
interface BodyReads extends BodyReadLimits {
  inFlight: { count: number; bytes: number; byClient: Map<string, number> };
}

const newBodyReads = (limits: BodyReadLimits): BodyReads => ({
  ...limits,
  inFlight: { count: 0, bytes: 0, byClient: new Map() },
});

/** Mounted once per app: the limits, and the one in-flight count every reader shares. */
export function bodyReadLimits(limits: BodyReadLimits) {
  const reads = newBodyReads(limits);
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.bodyReads = reads;
    await next();
  };
}

/** How a read is counted against a client's fair share: its address unless the route knows better. */
export interface BodyReadOptions {
  /**
   * e.g. `shop:{domain}` for webhooks, which all arrive from Shopify's addresses: the read then takes
   * the shop's share, and its address may hold at most half of all slots, not a client's share. The
   * shop is only claimed (the header is not signed), so without the address's cap one address naming
   * a new shop on every connection took every slot (a black-box probe, issue 31 item 2).
   */
  client?: string;
}

/**
 * Reads a small body whole, as text, within the app's deadline. Errors are the JSON answers a
 * client can act on: 413 over `limitBytes`, 408 past the deadline (and the connection is closed,
 * so a silent client lets go of its socket), 503 when too many bodies are in flight, 400 when the
 * client went away mid-body.
 */
export async function readBodyText(
  ctx: Context,
  limitBytes: number,
  tooLarge: string,
  options: BodyReadOptions = {},
): Promise<string> {
  return (await readBody(ctx, limitBytes, tooLarge, 'utf8', options)) as string;
}

/** `readBodyText` for a small binary body (a poster image), under the same deadline and cap. */
export async function readBodyBytes(ctx: Context, limitBytes: number, tooLarge: string): Promise<Buffer> {
  return (await readBody(ctx, limitBytes, tooLarge, null, {})) as Buffer;
}

async function readBody(
  ctx: Context,
  limitBytes: number,
  tooLarge: string,
  encoding: 'utf8' | null,
  options: BodyReadOptions,
): Promise<string | Buffer> {
  const reads = (ctx.state.bodyReads as BodyReads | undefined) ?? newBodyReads(DEFAULT_BODY_READ_LIMITS);
  const { inFlight } = reads;
  const declared = Number(ctx.get('Content-Length'));
  // Over the route's cap, raw-body refuses at once from the declared length, without reading.
  const bytes = ctx.get('Content-Length') && Number.isSafeInteger(declared) && declared >= 0 ? declared : limitBytes;
  const reserved = Math.min(bytes, limitBytes);
  if (inFlight.count >= reads.maxInFlight) throw refusedBusy('Too many request bodies are arriving at once.');
  const address = `ip:${ctx.ip}`;
  const shares: ReadonlyArray<readonly [client: string, max: number]> = options.client
    ? [
        [options.client, reads.maxInFlightPerClient],
        [address, Math.max(reads.maxInFlightPerClient, Math.floor(reads.maxInFlight / 2))],
      ]
    : [[address, reads.maxInFlightPerClient]];
  // The share binds only when the slots are contended (half taken): a busy client alone on a quiet
  // server is not slowed, and an abuser holds at most half, leaving the rest to everyone else.
  const contended = inFlight.count >= reads.maxInFlight / 2;
  const over = shares.find(([client, max]) => (inFlight.byClient.get(client) ?? 0) >= max);
  if (contended && reads.maxInFlightPerClient > 0 && over)
    throw new HttpError(
      429,
      'rate_limited',
      `Too many request bodies from this client are arriving at once (at most ${over[1]}). Retry when one has been answered.`,
      { 'Retry-After': '1', Connection: 'close' },
    );
  if (inFlight.bytes + reserved > reads.maxBytesInFlight)
    throw refusedBusy('Too many request bytes are arriving at once.');
  inFlight.count++;
  inFlight.bytes += reserved;
  for (const [client] of shares) inFlight.byClient.set(client, (inFlight.byClient.get(client) ?? 0) + 1);
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
    inFlight.count--;
    inFlight.bytes -= reserved;
    for (const [client] of shares) {
      const left = (inFlight.byClient.get(client) ?? 1) - 1;
      if (left > 0) inFlight.byClient.set(client, left);
      else inFlight.byClient.delete(client);
    }
  }
}

/** 503 at once, and the connection closed: the body is not read, so the socket is not kept for it. */
function refusedBusy(what: string): HttpError {
  return new HttpError(503, 'service_unavailable', `${what} Retry shortly.`, {
    'Retry-After': '1',
    Connection: 'close',
  });
}
