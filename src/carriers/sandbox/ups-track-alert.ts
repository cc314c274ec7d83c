import Router from '@koa/router';
import { BodyError, readJson } from './body.ts';
import type { SandboxState } from './state.ts';

/**
 * Fake UPS Track Alert v2 (test/fixtures/carriers/ups-track-alert.openapi.yaml): package
 * subscriptions under /sandbox/ups/api/track/v2, and the `TrackingEvent` webhook posted to the
 * registered URL for every event scripted after a number is subscribed (Track Alert keeps no
 * history). The webhook credentials are registered out of band, as with UPS's "Manage Webhook
 * Credentials" page: here through the control API or in-process (SandboxPush.register).
 */

const TRACKING_NUMBER = /(^1Z[0-9A-Z]{16}$)|(^1R[0-9A-Z]{14}$)|(^1R[0-9A-Z]{26}$)/;
const LIFETIME_MS = 14 * 24 * 3_600_000;

const upsErrors = (code: string, message: string) => ({ response: { errors: [{ code, message }] } });

export function upsTrackAlertRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/ups/api/track/:version/subscription/:type' });

  router.post('/package', async (ctx) => {
    const stats = state.carriers.ups.stats;
    stats.subscribeCalls += 1;
    if (!state.tokens.accepts('ups', ctx.get('authorization'))) {
      ctx.status = 401;
      ctx.body = upsErrors('250002', 'Invalid Authentication Information');
      return;
    }
    if (ctx.params['version'] !== 'v2') {
      ctx.status = 404;
      ctx.body = upsErrors('404', 'The requested resource was not found.');
      return;
    }
    const reject = (code: string, message: string, invalid: string[] = []) => {
      ctx.status = 400;
      ctx.body = { invalidTrackingNumbers: invalid, ...upsErrors(code, message) };
    };
    if (!ctx.get('transId')) return reject('VSS002', 'Missing transId');
    if (!ctx.get('transactionSrc')) return reject('VSS004', 'Missing transactionSrc');
    if (ctx.params['type'] !== 'standard' && ctx.params['type'] !== 'enhanced')
      return reject('VSS930', 'Type is missing or invalid, The Subscription request has been rejected.');
    let body: unknown;
    try {
      body = await readJson(ctx);
    } catch (error) {
      if (error instanceof BodyError)
        return reject(
          'VSS110',
          'Subscription request is empty or not present. The Subscription request has been rejected.',
        );
      throw error;
    }
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof request['locale'] !== 'string')
      return reject('VSS300', 'Locale is required. The Subscription request has been rejected.');
    if (!/^[a-z]{2}_[A-Z]{2}$/.test(request['locale']))
      return reject('VSS310', 'Please enter a valid locale. The Subscription request has been rejected');
    const list = request['trackingNumberList'];
    if (!Array.isArray(list) || list.length === 0)
      return reject('VSS200', 'Tracking Number List is required. The Subscription request has been rejected.');
    if (list.length > 100)
      return reject(
        'VSS220',
        'You have submitted over 100 tracking numbers which is not allowed. The entire submission of tracking numbers has been rejected.  Please resubmit your request again using groups of no more than 100 tracking numbers.',
      );
    const numbers = list.map(String);
    const valid = numbers.filter((n) => TRACKING_NUMBER.test(n));
    const invalid = numbers.filter((n) => !TRACKING_NUMBER.test(n));
    if (valid.length === 0)
      return reject(
        'VSS210',
        'The Subscription request should have at least one valid tracking number. The Subscription request has been rejected.',
        invalid,
      );
    for (const number of valid) state.push.subscribe('ups', number, new Date(state.now().getTime() + LIFETIME_MS));
    ctx.body =
      invalid.length > 0
        ? { validTrackingNumbers: valid, invalidTrackingNumbers: invalid }
        : { validTrackingNumbers: valid };
  });

  return router;
}
