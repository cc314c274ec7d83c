import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { createCarrierHttp } from './http.ts';
import { sendWithToken } from './oauth.ts';
import { createUspsTokenCache } from './usps-oauth.ts';
import { isRecord } from './results.ts';
import type { CarrierClientOptions, CarrierPushSubscriptions, TrackingResult } from './types.ts';
import { parseUspsV3Response } from './usps-response.ts';

/**
 * USPS Subscriptions-Tracking v3: subscriptions by tracking number, the verification challenge and
 * the signed notifications USPS posts to our listener. USPS publishes no spec we could read; the
 * shapes here follow public client code, and every point not confirmable is an assumption listed in
 * docs/carriers/push-usps-fedex.md ("USPS"). Pure except createUspsSubscriptions (HTTP).
 */

export const USPS_SUBSCRIPTIONS_PATH = '/subscriptions-tracking/v3/subscriptions';
/** Assumption (A4): USPS names no ceiling; the Tracking v3r2 batch size is used. */
export const USPS_PUSH_MAX_BATCH_SIZE = 35;
/** USPS drops a subscription after about 25 days without events; renewed a day before (PushSubscriptions). */
export const USPS_PUSH_LIFETIME_MS = 25 * 24 * 3_600_000;
/** USPS requires the listener secret to be at least 32 characters. */
export const USPS_PUSH_MIN_SECRET_LENGTH = 32;
/** Assumption (A2): the signature and timestamp header names; the sandbox sends the first of each. */
export const USPS_SIGNATURE_HEADER = 'x-usps-hmac-signature';
export const USPS_TIMESTAMP_HEADER = 'x-usps-timestamp';
/** Other names public code reads them under (A2); the listener takes the first present. */
export const USPS_SIGNATURE_HEADERS = [USPS_SIGNATURE_HEADER, 'x-usps-signature', 'x-hmac'] as const;
export const USPS_TIMESTAMP_HEADERS = [USPS_TIMESTAMP_HEADER, 'x-timestamp'] as const;
/** A signed post older (or newer) than this is refused: a replayed capture cannot be applied. */
export const USPS_SIGNATURE_MAX_SKEW_MS = 5 * 60_000;

/** A random listener secret for the sandbox (URL-safe, 43 characters). */
export function generatedUspsPushSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Assumption (A2): hex HMAC-SHA256 with the subscription's secret over the timestamp then the raw body. */
export function uspsSignature(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(timestamp).update(rawBody).digest('hex');
}

export type UspsSignatureCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/** Checks a post's signature in constant time, and that its timestamp (Unix seconds) is recent. */
export function checkUspsSignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: string,
  now: Date,
): UspsSignatureCheck {
  const signature = headers.signature?.trim().replace(/^sha256=/i, '') ?? '';
  const timestamp = headers.timestamp?.trim() ?? '';
  if (signature === '' || timestamp === '') return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'stale';
  if (Math.abs(now.getTime() - Number(timestamp) * 1000) > USPS_SIGNATURE_MAX_SKEW_MS) return 'stale';
  const expected = Buffer.from(uspsSignature(secret, timestamp, rawBody), 'hex');
  // Sources disagree on the encoding (A2): hex and base64 of the same digest are both accepted.
  const given = /^[0-9a-f]{64}$/i.test(signature)
    ? Buffer.from(signature, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(signature)
      ? Buffer.from(signature, signature.includes('-') || signature.includes('_') ? 'base64url' : 'base64')
      : null;
  const same = timingSafeEqual(given?.length === expected.length ? given : Buffer.alloc(expected.length), expected);
  return same && given !== null ? 'ok' : 'mismatch';
}

/** Assumption (A3): the verification challenge USPS posts to the listener on create; echoed back. */
export const uspsChallengeSchema = z.object({ challenge: z.string().min(1).max(512) });

/**
 * Assumption (A1): a notification is the one package's Tracking v3 `TrackingDetails` (trackingNumber,
 * status, statusCategory, trackingEvents, newest first), so it reads exactly as a poll's answer.
 */
export const uspsNotificationSchema = z.looseObject({
  trackingNumber: z.string().regex(/^[0-9A-Z]{10,40}$/, { error: 'trackingNumber must be a USPS tracking number' }),
  statusCategory: z.string().optional(),
  status: z.string().optional(),
  trackingEvents: z.array(z.looseObject({})).optional(),
});
export type UspsNotification = z.infer<typeof uspsNotificationSchema>;

/** One notification as a tracking result, through the Tracking v3 parser and usps-status.ts's mapping. */
export function uspsNotificationResult(body: unknown): TrackingResult {
  const notification = uspsNotificationSchema.parse(body);
  return parseUspsV3Response(notification.trackingNumber, body);
}

/** The package, its newest event's moment and type: a resent notification is stored once. */
export function uspsEventKey(notification: UspsNotification, rawBody: unknown): string {
  const newest = notification.trackingEvents?.[0];
  const identity = newest
    ? [
        notification.trackingNumber,
        String(newest['GMTTimestamp'] ?? newest['eventTimestamp'] ?? ''),
        String(newest['eventCode'] ?? ''),
        String(newest['eventType'] ?? ''),
      ]
    : [notification.trackingNumber, JSON.stringify(isRecord(rawBody) ? rawBody : {})];
  return createHash('sha256').update(identity.join('\n')).digest('base64url');
}

export interface UspsSubscriptionsOptions extends CarrierClientOptions {
  /** Where USPS posts notifications (our public route, src/tracking/push-routes-usps.ts). */
  listenerUrl: string;
  /** The listener secret (≥ 32 characters) USPS signs with; sent on create only. */
  secret: string;
}

export interface UspsSubscriptions extends CarrierPushSubscriptions {
  unsubscribe(subscriptionId: string): Promise<boolean>;
  get(subscriptionId: string): Promise<unknown>;
}

const createAnswer = z.looseObject({ subscriptionId: z.string().min(1) });

/**
 * The subscriptions client. OAuth as the Tracking client (`POST /oauth2/v3/token`, JSON body) but
 * with the `subscriptions-tracking` scope (assumption A5). One subscription per batch of numbers:
 * `POST /subscriptions-tracking/v3/subscriptions` with `listenerURL`, `secret` and
 * `filterProperties.trackingNumbers`; 201 (or 200) with a `subscriptionId` subscribes the batch, a
 * 400/422 refuses it whole (a number USPS does not know, or a listener that failed the challenge).
 */
export function createUspsSubscriptions(options: UspsSubscriptionsOptions): UspsSubscriptions {
  if (options.secret.length < USPS_PUSH_MIN_SECRET_LENGTH)
    throw new Error(`the USPS listener secret must be at least ${USPS_PUSH_MIN_SECRET_LENGTH} characters`);
  const http = createCarrierHttp('usps', options);
  const tokens = createUspsTokenCache(http, options, 'subscriptions-tracking');

  return {
    maxBatchSize: USPS_PUSH_MAX_BATCH_SIZE,
    lifetimeMs: USPS_PUSH_LIFETIME_MS,
    async subscribe(trackingNumbers) {
      const response = await sendWithToken(http, tokens, undefined, (token) => ({
        operation: 'subscribe',
        trackingNumbers: trackingNumbers.length,
        method: 'POST',
        path: USPS_SUBSCRIPTIONS_PATH,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          listenerURL: options.listenerUrl,
          secret: options.secret,
          filterProperties: { trackingNumbers, trackingEventTypes: ['ALL'] },
          format: 'JSON',
        }),
      }));
      if (response.status === 400 || response.status === 422) return { subscribed: [], refused: [...trackingNumbers] };
      if ((response.status === 200 || response.status === 201) && createAnswer.safeParse(response.body).success)
        return { subscribed: [...trackingNumbers], refused: [] };
      throw new CarrierUnexpectedResponseError(
        'usps',
        `USPS subscription answered ${response.status}: ${summarizeErrorBody(response.body) ?? 'no detail'}`,
        { status: response.status },
      );
    },
    async unsubscribe(subscriptionId) {
      const response = await sendWithToken(http, tokens, undefined, (token) => ({
        operation: 'subscribe',
        trackingNumbers: 0,
        method: 'DELETE',
        path: `${USPS_SUBSCRIPTIONS_PATH}/${encodeURIComponent(subscriptionId)}`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }));
      if (response.status === 200 || response.status === 204) return true;
      if (response.status === 404) return false;
      throw new CarrierUnexpectedResponseError('usps', `USPS subscription delete answered ${response.status}`, {
        status: response.status,
      });
    },
    async get(subscriptionId) {
      const response = await sendWithToken(http, tokens, undefined, (token) => ({
        operation: 'subscribe',
        trackingNumbers: 0,
        method: 'GET',
        path: `${USPS_SUBSCRIPTIONS_PATH}/${encodeURIComponent(subscriptionId)}`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }));
      if (response.status === 200) return response.body;
      if (response.status === 404) return null;
      throw new CarrierUnexpectedResponseError('usps', `USPS subscription lookup answered ${response.status}`, {
        status: response.status,
      });
    },
  };
}
