import { randomUUID } from 'node:crypto';
import { summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { parseFedexTrackResponse } from './fedex-response.ts';
import { createCarrierHttp } from './http.ts';
import { createFedexTokenCache } from './fedex-oauth.ts';
import { sendWithToken } from './oauth.ts';
import { chunk } from './results.ts';
import type { CarrierClient, CarrierClientOptions, TrackingResult } from './types.ts';

export { normalizeFedexStatus } from './fedex-status.ts';

/** fedex-track.openapi.json `trackingInfo`: "Maximum limit is 30." */
export const FEDEX_MAX_BATCH_SIZE = 30;

/**
 * FedEx Track API client. OAuth: `POST /oauth/token` with a form body carrying grant_type, client_id
 * and client_secret (docs/carriers/NOTES.md; the track spec only says "Bearer"). Tracking:
 * `POST /track/v1/trackingnumbers` with up to 30 numbers per request.
 */
export function createFedexClient(options: CarrierClientOptions): CarrierClient {
  const http = createCarrierHttp('fedex', options);
  const tokens = createFedexTokenCache(http, options);

  async function trackBatch(trackingNumbers: string[], signal: AbortSignal | undefined): Promise<TrackingResult[]> {
    const body = JSON.stringify({
      includeDetailedScans: false,
      trackingInfo: trackingNumbers.map((trackingNumber) => ({
        trackingNumberInfo: { trackingNumber: trackingNumber.trim() },
      })),
    });
    const response = await sendWithToken(http, tokens, signal, (token) => ({
      operation: 'track',
      trackingNumbers: trackingNumbers.length,
      method: 'POST',
      path: '/track/v1/trackingnumbers',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-locale': 'en_US',
        'x-customer-transaction-id': randomUUID(),
      },
      body,
      signal,
    }));
    if (response.status === 200) return parseFedexTrackResponse(trackingNumbers, response.body);
    // Unknown numbers come back inside a 200; any other status is about the request, not a number.
    throw new CarrierUnexpectedResponseError(
      'fedex',
      `FedEx track answered ${response.status}: ${summarizeErrorBody(response.body) ?? 'no detail'}`,
      {
        status: response.status,
      },
    );
  }

  return {
    carrier: 'fedex',
    maxBatchSize: FEDEX_MAX_BATCH_SIZE,
    async track(trackingNumbers, trackOptions) {
      const results: TrackingResult[] = [];
      for (const batch of chunk(trackingNumbers, FEDEX_MAX_BATCH_SIZE))
        results.push(...(await trackBatch(batch, trackOptions?.signal)));
      return results;
    },
  };
}
