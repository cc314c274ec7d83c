import Router from '@koa/router';
import { z } from 'zod';
import { upsEventKey, upsTrackingEventSchema } from '../carriers/clients/ups-track-alert.ts';
import type { Context } from 'koa';
import { readBodyText } from '../http/body-reads.ts';
import { HttpError } from '../http/errors.ts';
import { readJsonObject } from '../http/json-body.ts';
import {
  acceptsPushClient,
  acceptsPushToken,
  issuePushToken,
  sameText,
  type PushCredentials,
} from './push-credentials.ts';
import type { Logger } from '../logger.ts';
import type { PushEvents } from './push-events.ts';
import { uspsSubscriptionsRoute } from './push-routes-usps.ts';
import { fedexAivRoute } from './push-routes-fedex.ts';

/** The paths registered with UPS as the webhook URL and its token URL (docs/tracking.md "Push"). */
export const UPS_TRACK_ALERT_PATH = '/carriers/ups/track-alert';
export const UPS_TRACK_ALERT_TOKEN_PATH = '/carriers/ups/track-alert/token';

const unauthorized = () =>
  new HttpError(401, 'unauthorized', 'Missing or invalid push credentials.', { 'WWW-Authenticate': 'Bearer' });

/**
 * Public routes the carriers call. UPS Track Alert v2 (ups-track-alert.openapi.yaml): the token URL
 * (client credentials, client_secret_basic) and the webhook, which checks the bearer token and the
 * `x-api-key` client id, stores the raw event and answers 200 at once; the event is applied right
 * after the answer (and by the tracking claim tick, for anything that fails here or is missed).
 */
export function pushRoutes(deps: {
  ups: PushCredentials | null;
  /** USPS Subscriptions-Tracking: the listener secret; null or absent → no USPS route. */
  usps?: { secret: string } | null;
  /** FedEx AIV: the webhook project's security token; null or absent → no FedEx route. */
  fedex?: { securityToken: string } | null;
  events: PushEvents;
  now: () => Date;
  logger: Logger;
}): Router {
  const router = new Router();
  if (deps.fedex)
    fedexAivRoute(router, {
      securityToken: deps.fedex.securityToken,
      events: deps.events,
      applySoon: () => applySoon(deps.events, deps.logger),
    });
  if (deps.usps)
    uspsSubscriptionsRoute(router, {
      secret: deps.usps.secret,
      events: deps.events,
      now: deps.now,
      applySoon: () => applySoon(deps.events, deps.logger),
    });
  const ups = deps.ups;
  if (!ups) return router;

  router.post(UPS_TRACK_ALERT_TOKEN_PATH, async (ctx) => {
    if (!acceptsPushClient(ups, ctx.get('authorization'))) throw unauthorized();
    const form = await readForm(ctx, Boolean(ctx.is('application/x-www-form-urlencoded')));
    if (form.get('grant_type') !== 'client_credentials')
      throw new HttpError(400, 'unsupported_grant_type', 'grant_type must be client_credentials.');
    const token = issuePushToken(ups, deps.now());
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresInSeconds };
  });

  router.post(UPS_TRACK_ALERT_PATH, async (ctx) => {
    // Credentials before the body: nothing from an unknown caller is read or stored.
    const apiKey = ctx.get('x-api-key');
    if (
      !acceptsPushToken(ups, ctx.get('authorization'), deps.now()) ||
      (apiKey !== '' && !sameText(apiKey, ups.clientId))
    )
      throw unauthorized();
    // UPS's event is not ours to correct, and refusing it would drop a delivery signal: a repeated key
    // in it is read as JSON.parse reads it (the API's own clients get a 400, json-body.ts).
    const body = await readJsonObject(ctx, { lastOfRepeatedKey: true });
    const parsed = upsTrackingEventSchema.safeParse(body);
    if (!parsed.success)
      throw new HttpError(400, 'invalid_event', `Not a Track Alert event: ${z.prettifyError(parsed.error)}`);
    const stored = await deps.events.store({
      carrier: 'ups',
      trackingNumber: parsed.data.trackingNumber,
      eventKey: upsEventKey(parsed.data, body),
      body,
    });
    ctx.body = {};
    if (stored) applySoon(deps.events, deps.logger);
  });

  return router;
}

/** After the answer is on its way: the carrier waits for nobody, and a failure is the claim tick's to retry. */
function applySoon(events: PushEvents, logger: Logger): void {
  setImmediate(() => {
    events.processPending().catch((error: unknown) => {
      logger.warn({ err: error }, 'applying pushed carrier events failed; the claim tick retries');
    });
  });
}

async function readForm(ctx: Context, isForm: boolean): Promise<URLSearchParams> {
  if (!isForm) throw new HttpError(415, 'unsupported_media_type', 'Send the token request as a form.');
  return new URLSearchParams(await readBodyText(ctx, 4096, 'The token request is limited to 4096 bytes.'));
}
