import { ServiceUnavailableError } from '../../errors.ts';
import type { CarrierCode } from '../carrier-code.ts';

/**
 * What a carrier client throws. A number the carrier does not know is not among them: that is a
 * result with status `not_found`. Callers decide retry policy from the class alone:
 * rate limited → wait `retryAfterMs` (or back off); unavailable → back off and retry;
 * auth → stop and alert, retrying will not help until the credentials change.
 */

/** 429, or 503 with Retry-After (USPS sends both for quota: usps-tracking-v3.openapi.yaml). */
export class CarrierRateLimitedError extends ServiceUnavailableError {
  override name = 'CarrierRateLimitedError';
  constructor(
    readonly carrier: CarrierCode,
    /** From the Retry-After header (delta-seconds or HTTP-date); null when the carrier gave none. */
    readonly retryAfterMs: number | null,
    options?: ErrorOptions,
  ) {
    super(`${carrier} rate limit reached${retryAfterMs === null ? '' : `; retry after ${retryAfterMs} ms`}`, options);
  }
}

/**
 * Our own request budget for the carrier (src/carriers/quota.ts) said no, so the carrier was not
 * called: `spent` when the window's calls are used up (or the carrier told us to wait),
 * `unchecked` when the budget could not be read (Redis unreachable: we fail closed). A rate limit
 * like the carrier's own 429, so callers that wait out a 429 wait this out the same way.
 */
export class CarrierQuotaError extends CarrierRateLimitedError {
  override name = 'CarrierQuotaError';
  constructor(
    carrier: CarrierCode,
    readonly reason: 'spent' | 'unchecked',
    retryAfterMs: number | null,
    options?: ErrorOptions,
  ) {
    super(carrier, retryAfterMs, options);
    this.message =
      reason === 'spent'
        ? `our ${carrier} request budget is spent; next call in ${retryAfterMs ?? '?'} ms`
        : `our ${carrier} request budget could not be checked, so ${carrier} was not called`;
  }
}

/** 5xx, network failure or timeout: the carrier may answer later. */
export class CarrierUnavailableError extends ServiceUnavailableError {
  override name = 'CarrierUnavailableError';
  /** HTTP status when the carrier answered, null for network errors and timeouts. */
  readonly status: number | null;
  constructor(
    readonly carrier: CarrierCode,
    message: string,
    options?: ErrorOptions & { status?: number | null },
  ) {
    super(message, options);
    this.status = options?.status ?? null;
  }
}

/**
 * The carrier answered, but not in a shape its published API allows (unexpected status, body that
 * does not parse). Treated as unavailable so jobs retry, and named so it can be alerted on: it
 * usually means the carrier changed something or the base URL points at the wrong server.
 */
export class CarrierUnexpectedResponseError extends CarrierUnavailableError {
  override name = 'CarrierUnexpectedResponseError';
}

/** The carrier rejected our client credentials or token (OAuth 400/401/403, or 401 twice on a fresh token). */
export class CarrierAuthError extends Error {
  override name = 'CarrierAuthError';
  constructor(
    readonly carrier: CarrierCode,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
