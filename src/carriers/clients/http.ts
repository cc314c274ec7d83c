import type { CarrierCode } from '../carrier-code.ts';
import { CarrierRateLimitedError, CarrierUnavailableError } from './errors.ts';
import type { CarrierCall, CarrierClientOptions } from './types.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** How long a 429 without Retry-After keeps every process from calling the carrier. */
export const DEFAULT_HOLD_OFF_MS = 60_000;

export interface CarrierRequest {
  operation: CarrierCall['operation'];
  trackingNumbers: number;
  method: 'GET' | 'POST' | 'DELETE';
  /** Appended to the client's base URL. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface CarrierResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON; the raw text when the body is not JSON; null when empty. */
  body: unknown;
}

export interface CarrierHttp {
  readonly carrier: CarrierCode;
  /**
   * One exchange with the carrier, reported to `onCall`. Throws CarrierRateLimitedError for 429 (and
   * 503 with Retry-After), CarrierUnavailableError for other 5xx, network errors and timeouts; every
   * other status is returned for the carrier's own handling. A caller's abort is rethrown as is.
   * A tracking request the budget refuses is never sent: CarrierQuotaError.
   */
  send(request: CarrierRequest): Promise<CarrierResponse>;
}

export function createCarrierHttp(carrier: CarrierCode, options: CarrierClientOptions): CarrierHttp {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? (() => new Date());
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  const report = (call: CarrierCall): void => {
    try {
      options.onCall?.(call);
    } catch {
      // Observability must never change the outcome of a carrier call.
    }
  };

  async function exchange(request: CarrierRequest): Promise<{ status: number; headers: Headers; body: unknown }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    const started = performance.now();
    let status: number | null = null;
    let unreadable = false;
    try {
      const response = await fetchImpl(`${baseUrl}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal,
      });
      status = response.status;
      // The body read shares the signal, so a server that stalls mid-body also times out.
      const body = parseBody(await response.text());
      // Every carrier answers JSON: a 2xx that is not (cut off, compressed without saying so) is unusable.
      unreadable = response.ok && typeof body === 'string';
      return { status, headers: response.headers, body };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (timeout.aborted) {
        throw new CarrierUnavailableError(
          carrier,
          `${carrier} did not answer within ${timeoutMs} ms (${request.operation})`,
          { cause: error, status },
        );
      }
      throw new CarrierUnavailableError(
        carrier,
        `${carrier} could not be reached (${request.operation}): ${describe(error)}`,
        { cause: error, status },
      );
    } finally {
      report({
        carrier,
        operation: request.operation,
        status,
        durationMs: Math.round(performance.now() - started),
        trackingNumbers: request.trackingNumbers,
        ...(unreadable ? { unreadable } : {}),
      });
    }
  }

  return {
    carrier,
    async send(request) {
      // Tracking (and push subscription) requests are what the carriers count; OAuth token requests are not: they go to a
      // separate endpoint with its own limit (UPS's OAuth spec has its own 429 "Quota Limit
      // Exceeded"), and the token cache makes them about one per token lifetime per process.
      const budgeted = request.operation !== 'oauth' && options.budget !== undefined;
      if (budgeted) await options.budget!.take();
      const { status, headers, body } = await exchange(request);
      const retryAfterMs = parseRetryAfter(headers.get('retry-after'), now());
      if (status === 429 || (status === 503 && retryAfterMs !== null)) {
        // The carrier's word on its limit binds every process sharing the account, not just this call.
        if (budgeted) await options.budget!.holdOff(retryAfterMs ?? DEFAULT_HOLD_OFF_MS);
        throw new CarrierRateLimitedError(carrier, retryAfterMs);
      }
      if (status >= 500) {
        throw new CarrierUnavailableError(carrier, `${carrier} answered ${status} (${request.operation})`, { status });
      }
      return { status, headers, body };
    },
  };
}

const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3); anything else is ignored, and so is
 * a wait of nothing ("0", a date already past: the clocks disagree): "wait 0 ms" would call again on
 * every claim, so the default hold-off applies instead.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) > 0 ? Number(trimmed) * 1000 : null;
  // Only the IMF-fixdate form: Date.parse alone would also accept things like "1.5".
  if (!IMF_FIXDATE.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  const wait = at - now.getTime();
  return wait > 0 ? wait : null;
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
