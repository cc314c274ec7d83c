import Router from '@koa/router';
import { USPS_PUSH_MIN_SECRET_LENGTH } from '../clients/usps-subscriptions.ts';
import { BodyError, readJson } from './body.ts';
import { normalizeTrackingNumber } from './packages.ts';
import type { SandboxState } from './state.ts';
import type { SandboxUspsSubscription } from './usps-subscription-store.ts';
import { uspsV3Details } from './usps.ts';

/**
 * Fake USPS Subscriptions-Tracking v3, under /sandbox/usps/subscriptions-tracking/v3/subscriptions:
 * create (by tracking numbers, with listener URL and a ≥ 32-character secret, verified by a signed
 * challenge the listener must echo), get and delete; then a signed notification to the listener for
 * every event scripted on a subscribed number (usps-subscription-store.ts). A subscription lapses
 * after 25 days without events. The wire details are the assumptions of
 * docs/carriers/push-usps-fedex.md ("USPS Subscriptions-Tracking").
 */

const uspsError = (code: string, message: string) => ({ error: { code, message } });

export function uspsSubscriptionRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/usps/subscriptions-tracking/:version/subscriptions' });
  const subscriptions = state.push.usps;
  subscriptions.render = (trackingNumber, event, estimatedDeliveryAt) =>
    uspsV3Details(
      trackingNumber,
      { trackingNumber, latest: event, history: [event], estimatedDeliveryAt },
      state.utcOffsetMinutes,
    );

  router.use(async (ctx, next) => {
    if (!state.tokens.accepts('usps', ctx.get('authorization'))) {
      ctx.status = 401;
      ctx.body = uspsError('401', 'Invalid or missing access token.');
      return;
    }
    if (ctx.params['version'] !== 'v3') {
      ctx.status = 404;
      ctx.body = uspsError('404', 'The requested resource was not found.');
      return;
    }
    await next();
  });

  router.post('/', async (ctx) => {
    state.carriers.usps.stats.subscribeCalls += 1;
    const reject = (message: string) => {
      ctx.status = 400;
      ctx.body = uspsError('400', message);
    };
    let body: unknown;
    try {
      body = await readJson(ctx);
    } catch (error) {
      if (error instanceof BodyError) return reject('A JSON body is required.');
      throw error;
    }
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const listenerUrl = request['listenerURL'];
    if (typeof listenerUrl !== 'string' || !URL.canParse(listenerUrl)) return reject('listenerURL is required.');
    const secret = request['secret'];
    if (typeof secret !== 'string' || secret.length < USPS_PUSH_MIN_SECRET_LENGTH)
      return reject(`secret must be at least ${USPS_PUSH_MIN_SECRET_LENGTH} characters.`);
    const filter = request['filterProperties'] as Record<string, unknown> | undefined;
    const numbers = filter?.['trackingNumbers'];
    if (!Array.isArray(numbers) || numbers.length === 0 || !numbers.every((n) => typeof n === 'string'))
      return reject('filterProperties.trackingNumbers is required (the sandbox does not subscribe by MID).');
    const invalid = numbers.filter((n) => !/^[0-9A-Z]{10,40}$/.test(normalizeTrackingNumber(n)));
    if (invalid.length > 0) return reject(`Invalid tracking numbers: ${invalid.join(', ')}`);
    const created = await subscriptions.create({ trackingNumbers: numbers, listenerUrl, secret });
    if (!created) return reject('The listener did not answer the verification challenge.');
    ctx.status = 201;
    ctx.body = subscriptionJson(created);
  });

  router.get('/:id', (ctx) => {
    const subscription = subscriptions.get(ctx.params['id'] ?? '');
    if (!subscription) {
      ctx.status = 404;
      ctx.body = uspsError('404', 'No Subscriptions were found.');
      return;
    }
    ctx.body = subscriptionJson(subscription);
  });

  router.delete('/:id', (ctx) => {
    if (!subscriptions.delete(ctx.params['id'] ?? '')) {
      ctx.status = 404;
      ctx.body = uspsError('404', 'No Subscriptions were found.');
      return;
    }
    ctx.status = 204;
  });

  return router;
}

/** The secret is never echoed. */
function subscriptionJson(subscription: SandboxUspsSubscription) {
  return {
    subscriptionId: subscription.id,
    listenerURL: subscription.listenerUrl,
    filterProperties: { trackingNumbers: subscription.trackingNumbers, trackingEventTypes: ['ALL'] },
    format: 'JSON',
  };
}
