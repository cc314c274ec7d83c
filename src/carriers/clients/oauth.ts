import { z } from 'zod';
import type { CarrierCode } from '../carrier-code.ts';
import { summarizeErrorBody } from './error-body.ts';
import { CarrierAuthError, CarrierUnexpectedResponseError } from './errors.ts';
import type { CarrierHttp, CarrierRequest, CarrierResponse } from './http.ts';

/** Refresh this long before expiry, so a token never expires between our check and the carrier's. */
export const REFRESH_MARGIN_MS = 60_000;

export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

export interface TokenCache {
  /** A token valid for a while yet. Concurrent callers while none is cached share one token request. */
  get(signal?: AbortSignal): Promise<string>;
  /** Forget `token` because the carrier rejected it; a newer cached token is kept. */
  invalidate(token: string): void;
}

export function createTokenCache(options: {
  fetchToken: () => Promise<IssuedToken>;
  now: () => Date;
  refreshMarginMs?: number;
}): TokenCache {
  const marginMs = options.refreshMarginMs ?? REFRESH_MARGIN_MS;
  let cached: { value: string; refreshAt: number } | null = null;
  let inflight: Promise<string> | null = null;

  return {
    get(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (cached && options.now().getTime() < cached.refreshAt) return Promise.resolve(cached.value);
      // The shared request is not tied to any one caller's signal: one caller giving up must not fail the others.
      inflight ??= options
        .fetchToken()
        .then((issued) => {
          const lifetimeMs = issued.expiresInSeconds * 1000;
          // Short-lived tokens (the sandbox's) would otherwise be "expired" on arrival.
          const margin = Math.min(marginMs, lifetimeMs / 10);
          cached = { value: issued.accessToken, refreshAt: options.now().getTime() + lifetimeMs - margin };
          return issued.accessToken;
        })
        .finally(() => {
          inflight = null;
        });
      return signal ? untilAborted(inflight, signal) : inflight;
    },
    invalidate(token) {
      if (cached?.value === token) cached = null;
    },
  };
}

/**
 * Sends a request with a bearer token. A 401 means the carrier no longer accepts the token (expired or
 * revoked before our clock said so): drop it, fetch a new one and retry once. A second 401, or a 403,
 * is a credentials problem.
 */
export async function sendWithToken(
  http: CarrierHttp,
  tokens: TokenCache,
  signal: AbortSignal | undefined,
  build: (token: string) => CarrierRequest,
): Promise<CarrierResponse> {
  const token = await tokens.get(signal);
  let response = await http.send(build(token));
  if (response.status === 401) {
    tokens.invalidate(token);
    response = await http.send(build(await tokens.get(signal)));
  }
  if (response.status === 401 || response.status === 403) {
    throw new CarrierAuthError(
      http.carrier,
      response.status,
      `${http.carrier} rejected the access token (${response.status}): ${summarizeErrorBody(response.body) ?? 'no detail'}`,
    );
  }
  return response;
}

// All three carriers answer with OAuth 2 field names; UPS sends expires_in as a string
// (ups-oauth-client-credentials.openapi.yaml tokenSuccessResponse), FedEx and USPS as a number.
// RFC 6749 §5.1 only recommends expires_in: without it the token is kept for a short while and
// fetched again (a 401 would refresh it sooner anyway), rather than every call failing.
const UNSTATED_EXPIRY_SECONDS = 300;
const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.preprocess(
    (value) => (value === undefined || value === null || value === '' ? UNSTATED_EXPIRY_SECONDS : value),
    z.coerce.number().positive(),
  ),
});

/** The token endpoint's answer → a token, or the error a caller can act on. */
export function readTokenResponse(carrier: CarrierCode, response: CarrierResponse): IssuedToken {
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    throw new CarrierAuthError(
      carrier,
      response.status,
      `${carrier} refused the client credentials (${response.status}): ${summarizeErrorBody(response.body) ?? 'no detail'}`,
    );
  }
  if (response.status !== 200) {
    throw new CarrierUnexpectedResponseError(carrier, `${carrier} token endpoint answered ${response.status}`, {
      status: response.status,
    });
  }
  const parsed = tokenResponseSchema.safeParse(response.body);
  if (!parsed.success) {
    throw new CarrierUnexpectedResponseError(
      carrier,
      `${carrier} token response is not an OAuth token: ${z.prettifyError(parsed.error)}`,
      { status: 200 },
    );
  }
  return { accessToken: parsed.data.access_token, expiresInSeconds: parsed.data.expires_in };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
