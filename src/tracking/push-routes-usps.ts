import type Router from '@koa/router';
import { z } from 'zod';
import {
  checkUspsSignature,
  uspsChallengeSchema,
  uspsEventKey,
  uspsNotificationSchema,
  USPS_SIGNATURE_HEADERS,
  USPS_TIMESTAMP_HEADERS,
} from '../carriers/clients/usps-subscriptions.ts';
import { readBodyText } from '../http/body-reads.ts';
import { HttpError } from '../http/errors.ts';
import { parseJsonText } from '../http/json-body.ts';
import type { PushEvents } from './push-events.ts';

/** The listener URL given to USPS Subscriptions-Tracking on create ($PUBLIC_URL + this path). */
export const USPS_SUBSCRIPTIONS_TRACKING_PATH = '/carriers/usps/subscriptions-tracking';

const MAX_BODY_BYTES = 256 * 1024;

const reasons = {
  missing: 'Missing USPS signature or timestamp header.',
  stale: 'The USPS signature timestamp is missing, malformed or too old.',
  mismatch: 'The USPS signature does not match the body.',
} as const;

/**
 * The USPS listener: the signature (HMAC over timestamp + raw body, constant-time, recent
 * timestamp) is checked before anything is parsed or stored. A signed `{challenge}` (the
 * verification on create) is echoed back; a notification is stored raw and answered at once, and
 * applied right after (`applySoon`) and by the claim tick, like UPS Track Alert's events.
 */
export function uspsSubscriptionsRoute(
  router: Router,
  deps: { secret: string; events: PushEvents; now: () => Date; applySoon: () => void },
): void {
  router.post(USPS_SUBSCRIPTIONS_TRACKING_PATH, async (ctx) => {
    const raw = await readBodyText(ctx, MAX_BODY_BYTES, `A USPS notification is limited to ${MAX_BODY_BYTES} bytes.`);
    const check = checkUspsSignature(
      deps.secret,
      {
        signature: USPS_SIGNATURE_HEADERS.map((name) => ctx.get(name)).find((value) => value !== ''),
        timestamp: USPS_TIMESTAMP_HEADERS.map((name) => ctx.get(name)).find((value) => value !== ''),
      },
      raw,
      deps.now(),
    );
    if (check !== 'ok') throw new HttpError(401, 'unauthorized', reasons[check]);
    const body = parseJsonText(raw);
    const challenge = uspsChallengeSchema.safeParse(body);
    if (challenge.success) {
      ctx.body = { challenge: challenge.data.challenge };
      return;
    }
    const parsed = uspsNotificationSchema.safeParse(body);
    if (!parsed.success)
      throw new HttpError(400, 'invalid_event', `Not a USPS tracking notification: ${z.prettifyError(parsed.error)}`);
    const stored = await deps.events.store({
      carrier: 'usps',
      trackingNumber: parsed.data.trackingNumber,
      eventKey: uspsEventKey(parsed.data, body),
      body,
    });
    ctx.body = {};
    if (stored) deps.applySoon();
  });
}
