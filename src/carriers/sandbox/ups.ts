import Router from '@koa/router';
import { readForm } from './body.ts';
import { toLocalTime, type LocalTime } from './local-time.ts';
import type { PackageEvent, PackageSnapshot, SandboxStatus } from './packages.ts';
import type { SandboxState } from './state.ts';
import { TokenIssuer } from './tokens.ts';
import { trackGate, type CarrierErrorDialect } from './track-gate.ts';

/**
 * Fake UPS: OAuth client credentials (ups-oauth-client-credentials.openapi.yaml) and the Track API
 * details endpoint (ups-tracking.openapi.yaml, whose server URL ends in /api), under /sandbox/ups.
 */

/** How UPS would report each scripted status (`Status`: type, code, statusCode, description). */
const UPS_STATUS: Record<SandboxStatus, { type: string; code?: string; statusCode?: string; description: string }> = {
  pre_transit: {
    type: 'M',
    code: 'MP',
    statusCode: '003',
    description: 'Shipper created a label, UPS has not received the package yet.',
  },
  in_transit: { type: 'I', code: 'DP', statusCode: '005', description: 'Departed from Facility' },
  out_for_delivery: { type: 'I', code: 'OT', statusCode: '021', description: 'Out For Delivery Today' },
  delivered: { type: 'D', code: 'FS', statusCode: '011', description: 'DELIVERED' },
  // Typed D by UPS although the recipient still has to collect it: the client must look at the code.
  available_for_pickup: {
    type: 'D',
    code: '2Q',
    description: 'Delivered to UPS Access Point™ and awaiting customer pickup',
  },
  return_to_sender: { type: 'RS', code: 'RS', description: 'Returned to Sender' },
  failure: {
    type: 'X',
    code: 'UX',
    description: 'The address is incomplete. We are attempting to update the address.',
  },
};

const LOCATION = {
  address: { city: 'Wayne', stateProvince: 'NJ', postalCode: '07470', country: 'US', countryCode: 'US' },
  slic: '8566',
};

/** `Response` error body (yaml components.schemas.Response). */
const upsErrors = (code: string, message: string) => ({ response: { errors: [{ code, message }] } });

const dialect: CarrierErrorDialect = {
  carrier: 'ups',
  rateLimited(ctx) {
    ctx.status = 429;
    ctx.body = upsErrors('10429', 'Too Many Requests');
  },
  serverError(ctx) {
    ctx.status = 500;
    ctx.body = upsErrors('10500', 'Internal server error');
  },
  unauthorized(ctx) {
    ctx.status = 401;
    ctx.body = upsErrors('250002', 'Invalid Authentication Information.');
  },
};

export function upsRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/ups' });

  router.post('/security/v1/oauth/token', async (ctx) => {
    state.carriers.ups.stats.oauthCalls += 1;
    const form = ctx.is('application/x-www-form-urlencoded') ? await readForm(ctx) : {};
    const credentials = basicCredentials(ctx.get('authorization'));
    if (!credentials || !TokenIssuer.acceptsCredentials(credentials.clientId, credentials.clientSecret)) {
      ctx.status = 401;
      ctx.body = upsErrors('10401', 'ClientId is Invalid');
      return;
    }
    if (form['grant_type'] !== 'client_credentials') {
      ctx.status = 400;
      ctx.body = upsErrors('10400', 'Invalid/Missing grant_type');
      return;
    }
    const token = state.tokens.issue('ups');
    // tokenSuccessResponse: every field is a string, expires_in included.
    ctx.body = {
      token_type: 'Bearer',
      issued_at: String(token.issuedAt.getTime()),
      client_id: credentials.clientId,
      access_token: token.accessToken,
      scope: '',
      expires_in: String(token.expiresInSeconds),
      refresh_count: '0',
      status: 'approved',
    };
  });

  router.get('/api/track/v1/details/:inquiryNumber', trackGate(state, dialect), (ctx) => {
    const inquiryNumber = ctx.params['inquiryNumber'] ?? '';
    if (!ctx.get('transId') || !ctx.get('transactionSrc')) {
      ctx.status = 400;
      ctx.body = upsErrors('TV0001', 'Missing required header: transId and transactionSrc are required.');
      return;
    }
    if (inquiryNumber.length < 7 || inquiryNumber.length > 34) {
      ctx.status = 400;
      ctx.body = upsErrors('TV1002', 'Invalid inquiry number: it must be between 7 and 34 characters.');
      return;
    }
    const snapshot = state.packages.snapshot('ups', inquiryNumber);
    ctx.body = snapshot
      ? upsTrackResponse(inquiryNumber, snapshot, state.utcOffsetMinutes)
      : upsNotFoundResponse(inquiryNumber);
  });

  return router;
}

/** docs/carriers/NOTES.md: UPS answers an unknown number with 200 and warning TW0001 on the shipment. */
export function upsNotFoundResponse(inquiryNumber: string) {
  return {
    trackResponse: {
      shipment: [{ inquiryNumber, warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }] }],
    },
  };
}

export function upsTrackResponse(inquiryNumber: string, snapshot: PackageSnapshot, offsetMinutes: number) {
  const local = (at: Date): LocalTime => toLocalTime(at, offsetMinutes);
  const current = UPS_STATUS[snapshot.latest.status];
  return {
    trackResponse: {
      shipment: [
        {
          inquiryNumber,
          package: [
            {
              trackingNumber: snapshot.trackingNumber,
              packageCount: 1,
              currentStatus: {
                ...current,
                description: snapshot.latest.description ?? current.description,
                simplifiedTextDescription: current.description,
              },
              activity: snapshot.history.map((event) => activity(event, local)),
              ...deliveryDates(snapshot, local),
              packageAddress: [{ type: 'DESTINATION', address: LOCATION.address }],
              service: { code: '003', description: 'UPS Ground', levelCode: '003' },
              weight: { unitOfMeasurement: 'LBS', weight: '1.00' },
            },
          ],
        },
      ],
    },
  };
}

function activity(event: PackageEvent, local: (at: Date) => LocalTime) {
  const status = UPS_STATUS[event.status];
  const wall = local(event.at);
  const utc = toLocalTime(event.at, 0);
  return {
    location: LOCATION,
    status: { ...status, description: event.description ?? status.description },
    date: wall.compactDate,
    time: wall.compactTime,
    gmtDate: utc.compactDate,
    gmtOffset: wall.offset,
    // Leading zeros dropped, as in the yaml's example ('74700').
    gmtTime: String(Number(utc.compactTime)),
  };
}

/**
 * deliveryDate / deliveryTime (yaml `DeliveryDate`, `DeliveryTime`): DEL once delivered, else the
 * scheduled date (SDD) with an estimated window (EDW) ending at the scripted estimate. Both are
 * wall-clock without an offset.
 */
function deliveryDates(snapshot: PackageSnapshot, local: (at: Date) => LocalTime) {
  if (snapshot.latest.status === 'delivered') {
    const delivered = local(snapshot.latest.at);
    return {
      deliveryDate: [{ type: 'DEL', date: delivered.compactDate }],
      deliveryTime: { type: 'DEL', endTime: delivered.compactTime },
    };
  }
  if (!snapshot.estimatedDeliveryAt) return {};
  const end = local(snapshot.estimatedDeliveryAt);
  const start = local(new Date(snapshot.estimatedDeliveryAt.getTime() - 4 * 3600_000));
  return {
    deliveryDate: [{ type: 'SDD', date: end.compactDate }],
    deliveryTime: {
      type: 'EDW',
      startTime: start.compactDate === end.compactDate ? start.compactTime : '000000',
      endTime: end.compactTime,
    },
  };
}

function basicCredentials(authorization: string): { clientId: string; clientSecret: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return null;
  return { clientId: decoded.slice(0, separator), clientSecret: decoded.slice(separator + 1) };
}
