import type Router from '@koa/router';
import {
  checkFedexSignature,
  fedexEventKey,
  fedexPushEvents,
  FEDEX_SIGNATURE_HEADER,
} from '../carriers/clients/fedex-aiv.ts';
import { readBodyText } from '../http/body-reads.ts';
import { HttpError } from '../http/errors.ts';
import { parseJsonText } from '../http/json-body.ts';
import type { PushEvents } from './push-events.ts';

/** The destination URL entered on the FedEx AIV webhook project ($PUBLIC_URL + this path). */
export const FEDEX_AIV_WEBHOOK_PATH = '/carriers/fedex/webhook';

/** A "Detailed tracking response" carries the full scan history: room for a long one. */
const MAX_BODY_BYTES = 1024 * 1024;

const reasons = {
  missing: 'Missing fdx-signature header.',
  mismatch: 'The fdx-signature does not match the body.',
} as const;

/**
 * The FedEx AIV destination URL: `fdx-signature` (Base64 HMAC-SHA256 of the raw body keyed with the
 * project's security token, constant-time) is checked before anything is parsed or stored. Each
 * tracking number's part of the post is stored raw and answered at once, then applied right after
 * (`applySoon`) and by the claim tick, like the other carriers' events.
 */
export function fedexAivRoute(
  router: Router,
  deps: { securityToken: string; events: PushEvents; applySoon: () => void },
): void {
  router.post(FEDEX_AIV_WEBHOOK_PATH, async (ctx) => {
    const raw = await readBodyText(ctx, MAX_BODY_BYTES, `A FedEx event is limited to ${MAX_BODY_BYTES} bytes.`);
    const check = checkFedexSignature(deps.securityToken, ctx.get(FEDEX_SIGNATURE_HEADER), raw);
    if (check !== 'ok') throw new HttpError(401, 'unauthorized', reasons[check]);
    const body = parseJsonText(raw);
    const events = fedexPushEvents(body);
    if (!events)
      throw new HttpError(400, 'invalid_event', 'Not a FedEx tracking event: no track result names a FedEx number.');
    let stored = false;
    for (const event of events) {
      if (
        await deps.events.store({
          carrier: 'fedex',
          trackingNumber: event.trackingNumber,
          eventKey: fedexEventKey(event),
          body: event.body,
        })
      )
        stored = true;
    }
    ctx.body = {};
    if (stored) deps.applySoon();
  });
}
