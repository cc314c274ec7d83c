import { errorMessageOf, summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { createCarrierHttp, type CarrierResponse } from './http.ts';
import { sendWithToken } from './oauth.ts';
import { createUspsTokenCache } from './usps-oauth.ts';
import { trackWithinLimits } from './number-limits.ts';
import { chunk, emptyResult, isRecord } from './results.ts';
import type { CarrierClient, CarrierClientOptions, TrackingResult } from './types.ts';
import { parseUspsV3Response, parseUspsV3r2Response } from './usps-response.ts';

export { normalizeUspsStatus } from './usps-status.ts';

export type UspsTrackingApi = 'v3' | 'v3r2';

export interface UspsClientOptions extends CarrierClientOptions {
  /** v3r2 (default) tracks up to 35 numbers per request; v3 one. */
  api?: UspsTrackingApi;
}

/** usps-tracking-v3r2.openapi.yaml `TrackingRequest`: maxItems 35. */
export const USPS_V3R2_MAX_BATCH_SIZE = 35;

/**
 * USPS Tracking API client. OAuth: `POST /oauth2/v3/token` with a JSON body (docs/carriers/NOTES.md; both yamls
 * name only the token URL). Tracking, v3: `GET /tracking/v3/tracking/{n}?expand=DETAIL`; v3r2:
 * `POST /tracking/v3r2/tracking` with a JSON array of `{trackingNumber}`, answered 200 (all found) or
 * 207 (per-item statusCode). An unknown number is a 404 (v3, or v3r2 when no number was found).
 */
export function createUspsClient(options: UspsClientOptions): CarrierClient {
  const api = options.api ?? 'v3r2';
  const http = createCarrierHttp('usps', options);
  const tokens = createUspsTokenCache(http, options, 'tracking');

  async function trackV3(trackingNumber: string, signal: AbortSignal | undefined): Promise<TrackingResult> {
    const response = await sendWithToken(http, tokens, signal, (token) => ({
      operation: 'track',
      trackingNumbers: 1,
      method: 'GET',
      path: `/tracking/v3/tracking/${encodeURIComponent(trackingNumber.trim())}?expand=DETAIL`,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal,
    }));
    if (response.status === 200) return parseUspsV3Response(trackingNumber, response.body);
    if (isNotFound(response)) return emptyResult(trackingNumber, 'not_found', errorMessageOf(response.body));
    throw unexpected(response);
  }

  function askV3r2(trackingNumbers: string[], signal: AbortSignal | undefined): Promise<CarrierResponse> {
    const body = JSON.stringify(trackingNumbers.map((trackingNumber) => ({ trackingNumber: trackingNumber.trim() })));
    return sendWithToken(http, tokens, signal, (token) => ({
      operation: 'track',
      trackingNumbers: trackingNumbers.length,
      method: 'POST',
      path: '/tracking/v3r2/tracking',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal,
    }));
  }

  async function trackV3r2(trackingNumbers: string[], signal: AbortSignal | undefined): Promise<TrackingResult[]> {
    const response = await askV3r2(trackingNumbers, signal);
    return v3r2Answer(trackingNumbers, response, signal, { bothHalvesRefused: 0 });
  }

  async function v3r2Answer(
    trackingNumbers: string[],
    response: CarrierResponse,
    signal: AbortSignal | undefined,
    split: { bothHalvesRefused: number },
  ): Promise<TrackingResult[]> {
    if (response.status === 200 || response.status === 207)
      return parseUspsV3r2Response(trackingNumbers, response.body);
    if (response.status === 400) return splitRefused(trackingNumbers, response, signal, split);
    // The yaml does not say how a request with no known number is answered; a plain 404 ErrorMessage
    // can only mean none was found (a 207 would name the ones that were).
    if (isNotFound(response))
      return trackingNumbers.map((trackingNumber) =>
        emptyResult(trackingNumber, 'not_found', errorMessageOf(response.body)),
      );
    throw unexpected(response);
  }

  /**
   * A 400 refuses the whole batch for what may be one number USPS will not take (number-limits.ts
   * keeps out those the yaml describes; this is for the ones it does not): both halves are asked on
   * their own and a refused half split again, so one such number costs a few calls and never holds
   * the others back; alone, it is a number USPS does not know. But a 400 for the request itself (a
   * header, a changed format) refuses every half: once both halves of a split have been refused more
   * often than a couple of bad numbers explain, the batch fails as USPS's refusal — a few calls,
   * not the hour's budget, and no package taken for "not found".
   */
  async function splitRefused(
    trackingNumbers: string[],
    refused: CarrierResponse,
    signal: AbortSignal | undefined,
    split: { bothHalvesRefused: number },
  ): Promise<TrackingResult[]> {
    if (trackingNumbers.length === 1)
      return [emptyResult(trackingNumbers[0]!, 'not_found', errorMessageOf(refused.body))];
    const middle = Math.ceil(trackingNumbers.length / 2);
    const halves = [trackingNumbers.slice(0, middle), trackingNumbers.slice(middle)];
    const responses: CarrierResponse[] = [];
    for (const half of halves) responses.push(await askV3r2(half, signal));
    if (responses.every((response) => response.status === 400)) {
      split.bothHalvesRefused += 1;
      if (split.bothHalvesRefused > BAD_NUMBERS_TOLERATED_PER_BATCH)
        throw unexpected(refused, 'the request itself, every part of it');
    }
    const results: TrackingResult[] = [];
    for (const [index, half] of halves.entries())
      results.push(...(await v3r2Answer(half, responses[index]!, signal, split)));
    return results;
  }

  return {
    carrier: 'usps',
    maxBatchSize: api === 'v3r2' ? USPS_V3R2_MAX_BATCH_SIZE : 1,
    track: (trackingNumbers, trackOptions) =>
      trackWithinLimits('usps', trackingNumbers, async (taken) => {
        const results: TrackingResult[] = [];
        if (api === 'v3r2') {
          for (const batch of chunk(taken, USPS_V3R2_MAX_BATCH_SIZE))
            results.push(...(await trackV3r2(batch, trackOptions?.signal)));
        } else {
          for (const trackingNumber of taken) results.push(await trackV3(trackingNumber, trackOptions?.signal));
        }
        return results;
      }),
  };
}

/** A 404 with the yaml's `ErrorMessage` body; a bare 404 would be a wrong URL, not an unknown package. */
function isNotFound(response: CarrierResponse): boolean {
  return response.status === 404 && isRecord(response.body) && 'error' in response.body;
}

/** Splits of a refused batch in which both halves were refused, before the request itself is blamed. */
const BAD_NUMBERS_TOLERATED_PER_BATCH = 2;

function unexpected(response: CarrierResponse, refused?: string): CarrierUnexpectedResponseError {
  return new CarrierUnexpectedResponseError(
    'usps',
    `USPS track answered ${response.status}${refused ? ` to ${refused}` : ''}: ${summarizeErrorBody(response.body) ?? 'no detail'}`,
    {
      status: response.status,
    },
  );
}
