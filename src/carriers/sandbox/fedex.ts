import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { BodyError, readForm, readJson } from './body.ts';
import { toLocalTime } from './local-time.ts';
import type { PackageEvent, PackageSnapshot, SandboxStatus } from './packages.ts';
import type { SandboxState } from './state.ts';
import { TokenIssuer } from './tokens.ts';
import { trackGate, type CarrierErrorDialect } from './track-gate.ts';

/**
 * Fake FedEx: OAuth (`POST /oauth/token`, form body, docs/carriers/NOTES.md) and Track by Tracking Number
 * (`POST /track/v1/trackingnumbers`, fedex-track.openapi.json), under /sandbox/fedex.
 */

/** `latestStatusDetail` / scan event codes per scripted status (codes from docs/carriers/NOTES.md). */
const FEDEX_STATUS: Record<SandboxStatus, { code: string; derivedCode: string; label: string }> = {
  pre_transit: { code: 'OC', derivedCode: 'IN', label: 'Label created' },
  in_transit: { code: 'IT', derivedCode: 'IT', label: 'In transit' },
  out_for_delivery: { code: 'OD', derivedCode: 'OD', label: 'On FedEx vehicle for delivery' },
  delivered: { code: 'DL', derivedCode: 'DL', label: 'Delivered' },
  available_for_pickup: { code: 'HL', derivedCode: 'HL', label: 'Ready for pickup' },
  return_to_sender: { code: 'RS', derivedCode: 'RS', label: 'Returning package to shipper' },
  failure: { code: 'DE', derivedCode: 'DE', label: 'Delivery exception' },
};

const SCAN_LOCATION = {
  streetLines: [''],
  city: 'MEMPHIS',
  stateOrProvinceCode: 'TN',
  postalCode: '38118',
  countryCode: 'US',
  countryName: 'United States',
  residential: false,
};

/** Where every sandbox package goes: Wayne, NJ, the place the other sandbox carriers use too. */
const RECIPIENT_ADDRESS = {
  city: 'WAYNE',
  stateOrProvinceCode: 'NJ',
  postalCode: '07470',
  countryCode: 'US',
  residential: true,
};

/** fedex-track.openapi.json `Full_Schema_Tracking_Numbers`: "Maximum limit is 30." */
const MAX_TRACKING_INFO = 30;

const trackRequestSchema = z.object({
  includeDetailedScans: z.boolean(),
  trackingInfo: z
    .array(
      z.object({
        shipDateBegin: z.string().optional(),
        shipDateEnd: z.string().optional(),
        trackingNumberInfo: z.object({
          trackingNumber: z.string(),
          carrierCode: z.string().optional(),
          trackingNumberUniqueId: z.string().optional(),
        }),
      }),
    )
    .min(1)
    .max(MAX_TRACKING_INFO),
});

/** `ErrorResponseVO` (and its 401/403/404/500/503 siblings). */
const fedexErrors = (code: string, message: string) => ({ transactionId: randomUUID(), errors: [{ code, message }] });

const dialect: CarrierErrorDialect = {
  carrier: 'fedex',
  rateLimited(ctx) {
    // The spec lists no 429; FedEx's gateway answers one in the same error shape.
    ctx.status = 429;
    ctx.body = fedexErrors(
      'TOO.MANY.REQUESTS.ERROR',
      'We have received too many requests in a short duration. Please wait a while to try again.',
    );
  },
  serverError(ctx) {
    ctx.status = 500;
    ctx.body = fedexErrors(
      'INTERNAL.SERVER.ERROR',
      'We encountered an unexpected error and are working to resolve the issue. We apologize for any inconvenience. Please check back at a later time.',
    );
  },
  unauthorized(ctx) {
    ctx.status = 401;
    ctx.body = fedexErrors('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.');
  },
};

export function fedexRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/fedex' });

  router.post('/oauth/token', async (ctx) => {
    state.carriers.fedex.stats.oauthCalls += 1;
    const form = ctx.is('application/x-www-form-urlencoded') ? await readForm(ctx) : {};
    if (form['grant_type'] !== 'client_credentials') {
      ctx.status = 400;
      ctx.body = fedexErrors('BAD.REQUEST.ERROR', 'The given grant_type is not supported. Use client_credentials.');
      return;
    }
    if (!TokenIssuer.acceptsCredentials(form['client_id'], form['client_secret'])) {
      ctx.status = 401;
      ctx.body = fedexErrors(
        'NOT.AUTHORIZED.ERROR',
        'The given client credentials were not valid. Please modify your request and try again.',
      );
      return;
    }
    const token = state.tokens.issue('fedex');
    ctx.body = {
      access_token: token.accessToken,
      token_type: 'bearer',
      expires_in: token.expiresInSeconds,
      scope: 'CXS',
    };
  });

  router.post('/track/v1/trackingnumbers', trackGate(state, dialect), async (ctx) => {
    const request = await readTrackRequest(ctx);
    if (!request.success) {
      ctx.status = 400;
      ctx.body = { ...fedexErrors(request.code, request.message), ...customerTransaction(ctx) };
      return;
    }
    const numbers = request.data.trackingInfo.map((info) => info.trackingNumberInfo.trackingNumber);
    ctx.body = {
      transactionId: randomUUID(),
      ...customerTransaction(ctx),
      output: {
        completeTrackResults: numbers.map((trackingNumber) => {
          const snapshot = state.packages.snapshot('fedex', trackingNumber);
          return {
            trackingNumber,
            trackResults: [
              snapshot
                ? fedexTrackResult(trackingNumber, snapshot, state.utcOffsetMinutes)
                : fedexNotFoundResult(trackingNumber),
            ],
          };
        }),
      },
    };
  });

  return router;
}

type TrackRequest =
  { success: true; data: z.infer<typeof trackRequestSchema> } | { success: false; code: string; message: string };

async function readTrackRequest(ctx: Context): Promise<TrackRequest> {
  let body: unknown;
  try {
    body = await readJson(ctx);
  } catch (error) {
    if (error instanceof BodyError)
      return { success: false, code: 'INVALID.INPUT.EXCEPTION', message: 'Invalid field value in the input' };
    throw error;
  }
  const parsed = trackRequestSchema.safeParse(body);
  if (parsed.success) return { success: true, data: parsed.data };
  const info = (body as { trackingInfo?: unknown } | null)?.trackingInfo;
  if (!Array.isArray(info) || info.length === 0)
    return { success: false, code: 'TRACKING.TRACKINGNUMBER.EMPTY', message: 'Please provide tracking number.' };
  return {
    success: false,
    code: 'INVALID.INPUT.EXCEPTION',
    message: `Invalid field value in the input: ${parsed.error.issues[0]?.path.join('.') ?? 'body'}`,
  };
}

function customerTransaction(ctx: Context): { customerTransactionId?: string } {
  const id = ctx.get('x-customer-transaction-id');
  return id ? { customerTransactionId: id } : {};
}

/** docs/carriers/NOTES.md: an unknown number is a per-result error inside the 200. */
export function fedexNotFoundResult(trackingNumber: string) {
  return {
    trackingNumberInfo: { trackingNumber, trackingNumberUniqueId: '' },
    error: {
      code: 'TRACKING.TRACKINGNUMBER.NOTFOUND',
      message: 'Tracking number cannot be found. Please correct the tracking number and try again.',
    },
  };
}

export function fedexTrackResult(trackingNumber: string, snapshot: PackageSnapshot, offsetMinutes: number) {
  const at = (instant: Date): string => toLocalTime(instant, offsetMinutes).isoWithOffset;
  const latest = FEDEX_STATUS[snapshot.latest.status];
  const dateAndTimes: { type: string; dateTime: string }[] = [];
  if (snapshot.latest.status === 'delivered')
    dateAndTimes.push({ type: 'ACTUAL_DELIVERY', dateTime: at(snapshot.latest.at) });
  if (snapshot.estimatedDeliveryAt)
    dateAndTimes.push({ type: 'ESTIMATED_DELIVERY', dateTime: at(snapshot.estimatedDeliveryAt) });
  const shipped = snapshot.history.findLast((event) => event.status !== 'pre_transit');
  if (shipped) dateAndTimes.push({ type: 'ACTUAL_PICKUP', dateTime: at(shipped.at) });
  return {
    trackingNumberInfo: { trackingNumber, carrierCode: 'FDXG', trackingNumberUniqueId: `2460~${trackingNumber}~FDEG` },
    additionalTrackingInfo: { hasAssociatedShipments: false, nickname: '', packageIdentifiers: [], shipmentNotes: '' },
    serviceDetail: { type: 'FEDEX_GROUND', description: 'FedEx Ground', shortDescription: 'FG' },
    latestStatusDetail: {
      code: latest.code,
      derivedCode: latest.derivedCode,
      statusByLocale: latest.label,
      description: snapshot.latest.description ?? latest.label,
      scanLocation: SCAN_LOCATION,
    },
    dateAndTimes,
    recipientInformation: { address: RECIPIENT_ADDRESS },
    scanEvents: snapshot.history.map((event) => scanEvent(event, at)),
    ...(snapshot.estimatedDeliveryAt
      ? {
          estimatedDeliveryTimeWindow: {
            type: 'ESTIMATED_DELIVERY',
            window: {
              begins: at(new Date(snapshot.estimatedDeliveryAt.getTime() - 4 * 3600_000)),
              ends: at(snapshot.estimatedDeliveryAt),
            },
          },
        }
      : {}),
    availableImages: [],
    specialHandlings: [],
  };
}

function scanEvent(event: PackageEvent, at: (instant: Date) => string) {
  const status = FEDEX_STATUS[event.status];
  return {
    date: at(event.at),
    eventType: status.code,
    eventDescription: event.description ?? status.label,
    derivedStatusCode: status.derivedCode,
    derivedStatus: status.label,
    scanLocation: SCAN_LOCATION,
    locationType: event.status === 'delivered' ? 'DELIVERY_LOCATION' : 'FEDEX_FACILITY',
    exceptionCode: '',
    exceptionDescription: '',
  };
}
