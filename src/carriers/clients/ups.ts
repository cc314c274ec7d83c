import { randomUUID } from 'node:crypto';
import { errorMessageOf, summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { createCarrierHttp } from './http.ts';
import { createTokenCache, readTokenResponse, sendWithToken } from './oauth.ts';
import { trackWithinLimits } from './number-limits.ts';
import { emptyResult, isRecord } from './results.ts';
import type { CarrierClient, CarrierClientOptions, TrackingResult } from './types.ts';
import { parseUpsTrackResponse } from './ups-response.ts';
import { parseUpsSubscriptionResponse } from './ups-track-alert.ts';

export { normalizeUpsStatus } from './ups-status.ts';

export interface UpsClientOptions extends CarrierClientOptions {
  /** `transactionSrc` header: names the calling application to UPS. */
  transactionSource?: string;
}

/** Track Alert: "up to 100 tracking numbers … for the next 14 days" (ups-track-alert.openapi.yaml FAQs). */
export const UPS_TRACK_ALERT_MAX_BATCH_SIZE = 100;
export const UPS_TRACK_ALERT_LIFETIME_MS = 14 * 24 * 3_600_000;

/** The details endpoint takes one inquiry number per call (ups-tracking.openapi.yaml). */
export const UPS_MAX_BATCH_SIZE = 1;

/**
 * UPS Track API client. OAuth client credentials: `POST /security/v1/oauth/token` with HTTP Basic
 * (client id : secret) and a form body grant_type=client_credentials
 * (ups-oauth-client-credentials.openapi.yaml). Tracking: `GET /api/track/v1/details/{inquiryNumber}`
 * with the required `transId` and `transactionSrc` headers (ups-tracking.openapi.yaml; its server URL
 * ends in /api).
 */
export function createUpsClient(options: UpsClientOptions): CarrierClient {
  const http = createCarrierHttp('ups', options);
  const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
  const tokens = createTokenCache({
    now: options.now ?? (() => new Date()),
    fetchToken: async () =>
      readTokenResponse(
        'ups',
        await http.send({
          operation: 'oauth',
          trackingNumbers: 0,
          method: 'POST',
          path: '/security/v1/oauth/token',
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
        }),
      ),
  });

  async function trackOne(trackingNumber: string, signal: AbortSignal | undefined): Promise<TrackingResult> {
    const query = new URLSearchParams({
      locale: 'en_US',
      returnSignature: 'false',
      returnMilestones: 'false',
      returnPOD: 'false',
    });
    const response = await sendWithToken(http, tokens, signal, (token) => ({
      operation: 'track',
      trackingNumbers: 1,
      method: 'GET',
      path: `/api/track/v1/details/${encodeURIComponent(trackingNumber.trim())}?${query.toString()}`,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        // UPS caps transId at 32 characters: a dashless UUID fits exactly.
        transId: randomUUID().replaceAll('-', ''),
        transactionSrc: options.transactionSource ?? 'doorstep',
      },
      signal,
    }));
    if (response.status === 200) return parseUpsTrackResponse(trackingNumber, response.body);
    // The yaml documents 404 "Tracking number information not found" with a `Response` error body.
    // A 404 without that body is a wrong URL, not an unknown package.
    if (response.status === 404 && isRecord(response.body) && isRecord(response.body['response'])) {
      return emptyResult(trackingNumber, 'not_found', errorMessageOf(response.body));
    }
    throw new CarrierUnexpectedResponseError(
      'ups',
      `UPS track answered ${response.status}: ${summarizeErrorBody(response.body) ?? 'no detail'}`,
      {
        status: response.status,
      },
    );
  }

  /**
   * UPS Track Alert v2 (ups-track-alert.openapi.yaml): `POST /api/track/v2/subscription/standard/package`
   * with up to 100 numbers, the same OAuth token and transId/transactionSrc headers. v2 carries no
   * callback URL or credential in the request: both are registered with UPS once per application
   * ("Manage Webhook Credentials"), and UPS fetches a token from our token URL to call us
   * (src/tracking/push-routes.ts).
   */
  async function subscribe(trackingNumbers: string[]): Promise<{ subscribed: string[]; refused: string[] }> {
    const response = await sendWithToken(http, tokens, undefined, (token) => ({
      operation: 'subscribe',
      trackingNumbers: trackingNumbers.length,
      method: 'POST',
      path: '/api/track/v2/subscription/standard/package',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        'content-type': 'application/json',
        transId: randomUUID().replaceAll('-', ''),
        transactionSrc: options.transactionSource ?? 'doorstep',
      },
      body: JSON.stringify({ locale: 'en_US', countryCode: 'US', trackingNumberList: trackingNumbers }),
    }));
    return parseUpsSubscriptionResponse(trackingNumbers, response.status, response.body);
  }

  return {
    carrier: 'ups',
    maxBatchSize: UPS_MAX_BATCH_SIZE,
    push: { maxBatchSize: UPS_TRACK_ALERT_MAX_BATCH_SIZE, lifetimeMs: UPS_TRACK_ALERT_LIFETIME_MS, subscribe },
    track: (trackingNumbers, trackOptions) =>
      trackWithinLimits('ups', trackingNumbers, async (taken) => {
        const results: TrackingResult[] = [];
        // One after another: UPS's limits are unpublished (docs/carriers/NOTES.md), so no bursts from one caller.
        for (const trackingNumber of taken) results.push(await trackOne(trackingNumber, trackOptions?.signal));
        return results;
      }),
  };
}
