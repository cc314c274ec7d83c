import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { BodyError, readForm, readJson } from './body.ts';
import { formatOffset, toLocalTime, utcSeconds, type LocalTime } from './local-time.ts';
import type { PackageEvent, PackageSnapshot, SandboxStatus } from './packages.ts';
import type { SandboxState } from './state.ts';
import { TokenIssuer } from './tokens.ts';
import { trackGate, type CarrierErrorDialect } from './track-gate.ts';

/**
 * Fake USPS: OAuth (`POST /oauth2/v3/token`, JSON body), Tracking v3
 * (`GET /tracking/v3/tracking/{n}`, usps-tracking-v3.openapi.yaml) and v3r2
 * (`POST /tracking/v3r2/tracking`, usps-tracking-v3r2.openapi.yaml), under /sandbox/usps.
 */

/** statusCategory / status / Pub 199 event code per scripted status. */
const USPS_STATUS: Record<SandboxStatus, { category: string; status: string; eventCode?: string }> = {
  pre_transit: { category: 'Pre-Shipment', status: 'Shipping Label Created, USPS Awaiting Item', eventCode: 'GX' },
  in_transit: { category: 'In Transit', status: 'Arrived at USPS Regional Facility', eventCode: '10' },
  out_for_delivery: { category: 'Out for Delivery', status: 'Out for Delivery', eventCode: 'OF' },
  delivered: { category: 'Delivered', status: 'Delivered, Front Door/Porch', eventCode: '01' },
  // The v3r2 yaml names event 14 "Available for Pickup" (TrackingEvent.CODAmountDue).
  available_for_pickup: { category: 'Available for Pickup', status: 'Available for Pickup', eventCode: '14' },
  return_to_sender: { category: 'Return to Sender', status: 'Return to Sender Processed', eventCode: '09' },
  failure: { category: 'Alert', status: 'Delivery Exception, Animal Interference' },
};

const PLACE = { city: 'WAYNE', state: 'NJ', zip: '07470' };

/** v3r2 `TrackingRequest`: 1–35 items, trackingNumber alphanumeric of 4–34, no other fields. */
const v3r2RequestSchema = z
  .array(
    z.strictObject({
      trackingNumber: z.string().regex(/^[A-Za-z0-9]{4,34}$/),
      mailingDate: z.iso.date().optional(),
      destinationZIPCode: z
        .string()
        .regex(/^\d{5}$/)
        .optional(),
    }),
  )
  .min(1)
  .max(35);

/** `ErrorMessage` (both yamls). */
function uspsError(apiVersion: string, status: number, title: string, detail: string) {
  return {
    apiVersion,
    error: {
      code: String(status),
      message: title,
      errors: [{ status: String(status), code: String(status), title, detail }],
    },
  };
}

function dialect(apiVersion: string): CarrierErrorDialect {
  return {
    carrier: 'usps',
    rateLimited(ctx) {
      ctx.status = 429;
      ctx.body = uspsError(
        apiVersion,
        429,
        'Too Many Requests',
        'Too many requests have been received from client in a short amount of time.',
      );
    },
    serverError(ctx) {
      // The yamls document 503 (Retry-After optional) rather than 500; without Retry-After it is an outage.
      ctx.status = 503;
      ctx.body = uspsError(apiVersion, 503, 'Service Unavailable', 'The service is temporarily unavailable.');
    },
    unauthorized(ctx) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="https://api.usps.com"');
      ctx.body = uspsError(apiVersion, 401, 'Unauthorized', 'The access token is missing, invalid or expired.');
    },
  };
}

export function uspsRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/usps' });

  router.post('/oauth2/v3/token', async (ctx) => {
    state.carriers.usps.stats.oauthCalls += 1;
    const body = await readTokenRequest(ctx);
    if (body['grant_type'] !== 'client_credentials') {
      ctx.status = 400;
      ctx.body = { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' };
      return;
    }
    const clientId = typeof body['client_id'] === 'string' ? body['client_id'] : undefined;
    const clientSecret = typeof body['client_secret'] === 'string' ? body['client_secret'] : undefined;
    if (!TokenIssuer.acceptsCredentials(clientId, clientSecret)) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_client', error_description: 'Client authentication failed.' };
      return;
    }
    const token = state.tokens.issue('usps');
    ctx.body = {
      access_token: token.accessToken,
      token_type: 'Bearer',
      issued_at: token.issuedAt.getTime(),
      expires_in: token.expiresInSeconds,
      status: 'approved',
      scope: 'tracking',
      issuer: 'api.usps.com',
      client_id: clientId,
      application_name: 'Doorstep sandbox',
    };
  });

  router.get('/tracking/v3/tracking/:trackingNumber', trackGate(state, dialect('v3')), (ctx) => {
    const trackingNumber = ctx.params['trackingNumber'] ?? '';
    const snapshot = state.packages.snapshot('usps', trackingNumber);
    if (!snapshot) {
      ctx.status = 404;
      ctx.body = uspsError('v3', 404, 'Not Found', `The tracking number ${trackingNumber} could not be found.`);
      return;
    }
    // expand defaults to SUMMARY (v3 yaml); DETAIL gives the field-by-field TrackingDetails.
    const detail = String(ctx.query['expand'] ?? 'SUMMARY').toUpperCase() === 'DETAIL';
    ctx.body = detail
      ? uspsV3Details(trackingNumber, snapshot, state.utcOffsetMinutes)
      : uspsV3Summary(trackingNumber, snapshot, state.utcOffsetMinutes);
  });

  router.post('/tracking/v3r2/tracking', trackGate(state, dialect('v3r2')), async (ctx) => {
    let body: unknown;
    try {
      body = await readJson(ctx);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      body = undefined;
    }
    const request = v3r2RequestSchema.safeParse(body);
    if (!request.success) {
      ctx.status = 400;
      ctx.body = uspsError(
        'v3r2',
        400,
        'Bad Request',
        `The body must be an array of 1 to 35 {"trackingNumber"} objects: ${request.error.issues[0]?.message ?? ''}`,
      );
      return;
    }
    const answers = request.data.map(({ trackingNumber }) => ({
      trackingNumber,
      snapshot: state.packages.snapshot('usps', trackingNumber),
    }));
    // The yaml gives 200 (TrackingDetails), 207 (MultiStatusResponse) and 404 without saying which
    // when; the sandbox answers 200 when all are known, 404 when none is, 207 for a mix.
    if (answers.every((answer) => answer.snapshot)) {
      ctx.body = answers.flatMap(({ trackingNumber, snapshot }) =>
        snapshot ? [uspsV3r2Detail(trackingNumber, snapshot, state.utcOffsetMinutes)] : [],
      );
      return;
    }
    if (answers.every((answer) => !answer.snapshot)) {
      ctx.status = 404;
      ctx.body = uspsError('v3r2', 404, 'Not Found', 'None of the requested tracking numbers could be found.');
      return;
    }
    ctx.status = 207;
    ctx.body = answers.map(({ trackingNumber, snapshot }) =>
      snapshot
        ? { statusCode: '200', ...uspsV3r2Detail(trackingNumber, snapshot, state.utcOffsetMinutes) }
        : {
            statusCode: '404',
            trackingNumber,
            ...uspsError('v3r2', 404, 'Not Found', `The tracking number ${trackingNumber} could not be found.`),
          },
    );
  });

  return router;
}

/** USPS documents a JSON body; a form body is accepted as well, as the real endpoint does. */
async function readTokenRequest(ctx: Context): Promise<Record<string, unknown>> {
  if (ctx.is('application/x-www-form-urlencoded')) return readForm(ctx);
  try {
    const body = await readJson(ctx);
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  } catch (error) {
    if (error instanceof BodyError) return {};
    throw error;
  }
}

function statusSummary(snapshot: PackageSnapshot, local: LocalTime): string {
  const status = USPS_STATUS[snapshot.latest.status];
  return `${snapshot.latest.description ?? status.status}, ${local.isoDate} ${local.isoTime}, ${PLACE.city}, ${PLACE.state} ${PLACE.zip}`;
}

/** v3 `TrackingSummary` (expand=SUMMARY): one line per event, newest first. */
export function uspsV3Summary(trackingNumber: string, snapshot: PackageSnapshot, offsetMinutes: number) {
  return {
    trackingNumber,
    ...(snapshot.estimatedDeliveryAt
      ? { expectedDeliveryDate: toLocalTime(snapshot.estimatedDeliveryAt, offsetMinutes).isoDate }
      : {}),
    eventSummaries: snapshot.history.map((event) => {
      const local = toLocalTime(event.at, offsetMinutes);
      return `${event.description ?? USPS_STATUS[event.status].status}, ${local.isoDate}, ${local.isoTime}, ${PLACE.city}, ${PLACE.state} ${PLACE.zip}`;
    }),
  };
}

/** v3 `TrackingDetails` (expand=DETAIL). */
export function uspsV3Details(trackingNumber: string, snapshot: PackageSnapshot, offsetMinutes: number) {
  const latest = USPS_STATUS[snapshot.latest.status];
  const estimate = snapshot.estimatedDeliveryAt;
  return {
    trackingNumber,
    mailClass: 'PRIORITY_MAIL',
    mailType: 'DOMESTIC_MAIL',
    itemShape: 'PARCEL',
    destinationCity: PLACE.city,
    destinationState: PLACE.state,
    destinationZIP: PLACE.zip,
    emailEnabled: true,
    status: snapshot.latest.description ?? latest.status,
    statusCategory: latest.category,
    statusSummary: statusSummary(snapshot, toLocalTime(snapshot.latest.at, offsetMinutes)),
    ...(estimate
      ? {
          expectedDeliveryTimeStamp: toLocalTime(estimate, offsetMinutes).isoWithOffset,
          predictedDeliveryDate: toLocalTime(estimate, offsetMinutes).isoDate,
          predictedDeliveryWindowStartTime: windowStart(estimate, offsetMinutes),
          predictedDeliveryWindowEndTime: toLocalTime(estimate, offsetMinutes).isoTime,
        }
      : {}),
    trackingEvents: snapshot.history.map((event) => ({ ...eventFields(event, offsetMinutes), eventZIP: PLACE.zip })),
  };
}

/**
 * v3r2 `TrackingDetail`. SharedTrackingDetail, DeliveryDateExpectation and TrackingEvent all say
 * additionalProperties: false, so only their own fields appear (v3r2 renamed v3's eventZIP to
 * eventZIPCode).
 */
export function uspsV3r2Detail(trackingNumber: string, snapshot: PackageSnapshot, offsetMinutes: number) {
  const latest = USPS_STATUS[snapshot.latest.status];
  const estimate = snapshot.estimatedDeliveryAt;
  const firstEvent = snapshot.history.at(-1) ?? snapshot.latest;
  return {
    trackingNumber,
    mailClass: 'Priority Mail',
    mailClassCode: 'PM',
    mailType: 'Domestic',
    mailingDate: toLocalTime(firstEvent.at, offsetMinutes).isoDate,
    services: [],
    serviceTypeCode: '001',
    status: snapshot.latest.description ?? latest.status,
    statusCategory: latest.category,
    statusSummary: statusSummary(snapshot, toLocalTime(snapshot.latest.at, offsetMinutes)),
    destinationState: PLACE.state,
    uniqueTrackingID: `${trackingNumber}-1`,
    ...(estimate
      ? {
          deliveryDateExpectation: {
            expectedDeliveryDate: toLocalTime(estimate, offsetMinutes).isoDate,
            predictedDeliveryDate: toLocalTime(estimate, offsetMinutes).isoDate,
            predictedDeliverySource: 'USPS',
            predictedDeliveryWindowStartTime: windowStart(estimate, offsetMinutes),
            predictedDeliveryWindowEndTime: toLocalTime(estimate, offsetMinutes).isoTime,
          },
        }
      : {}),
    servicesEligibility: { proofOfDeliveryEnabled: false, RREEnabled: false, trackingProofOfDeliveryEnabled: false },
    trackingEvents: snapshot.history.map((event) => ({
      ...eventFields(event, offsetMinutes),
      eventZIPCode: PLACE.zip,
    })),
  };
}

/** Fields v3 and v3r2 events share. eventTimestamp is local with its offset; GMTTimestamp is UTC. */
function eventFields(event: PackageEvent, offsetMinutes: number) {
  const status = USPS_STATUS[event.status];
  return {
    eventType: event.description ?? status.status,
    ...(status.eventCode ? { eventCode: status.eventCode } : {}),
    eventTimestamp: toLocalTime(event.at, offsetMinutes).isoWithOffset,
    GMTTimestamp: utcSeconds(event.at),
    GMTOffset: formatOffset(offsetMinutes, true),
    eventCity: PLACE.city,
    eventState: PLACE.state,
    eventCountry: 'US',
  };
}

/** Four hours before the estimate, clipped to the start of its day. */
function windowStart(estimate: Date, offsetMinutes: number): string {
  const end = toLocalTime(estimate, offsetMinutes);
  const start = toLocalTime(new Date(estimate.getTime() - 4 * 3600_000), offsetMinutes);
  return start.isoDate === end.isoDate ? start.isoTime : '00:00:00';
}
