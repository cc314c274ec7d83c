import { randomBytes, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import {
  uspsSignature,
  USPS_PUSH_LIFETIME_MS,
  USPS_PUSH_MIN_SECRET_LENGTH,
  USPS_SIGNATURE_HEADER,
  USPS_TIMESTAMP_HEADER,
} from '../clients/usps-subscriptions.ts';
import { BodyError, readJson } from './body.ts';
import { normalizeTrackingNumber, type PackageEvent } from './packages.ts';
import type { PushDelivery } from './push.ts';
import type { SandboxState } from './state.ts';
import { uspsV3Details } from './usps.ts';

/**
 * Fake USPS Subscriptions-Tracking v3, under /sandbox/usps/subscriptions-tracking/v3/subscriptions:
 * create (by tracking numbers, with listener URL and a ≥ 32-character secret, verified by a signed
 * challenge the listener must echo), get and delete; then a signed notification to the listener for
 * every event scripted on a subscribed number. A subscription lapses after 25 days without events.
 * The wire details are the assumptions of docs/carriers/push-usps-fedex.md ("USPS").
 */

export interface SandboxUspsSubscription {
  id: string;
  trackingNumbers: string[];
  listenerUrl: string;
  secret: string;
  /** Lapses at this time unless an event moves it on (25 days after the last event). */
  until: number;
}

const RETRY_DELAYS_MS = [500, 2_000, 5_000];

export class SandboxUspsSubscriptions {
  readonly #subscriptions = new Map<string, SandboxUspsSubscription>();
  readonly #inflight = new Set<Promise<void>>();
  /** Challenges sent and whether the listener echoed them, for tests. */
  readonly challenges: { listenerUrl: string; answered: boolean }[] = [];

  constructor(
    private readonly now: () => Date,
    private readonly utcOffsetMinutes: () => number,
    private readonly deliveries: PushDelivery[],
    private readonly onPost: (ok: boolean) => void,
  ) {}

  /** Sends the signed challenge; the subscription exists only if the listener echoes it. */
  async create(request: { trackingNumbers: string[]; listenerUrl: string; secret: string }) {
    const challenge = randomBytes(16).toString('hex');
    let answered: boolean;
    try {
      const response = await this.signedPost(request.listenerUrl, request.secret, { challenge });
      const body = (await response.json().catch(() => null)) as { challenge?: unknown } | null;
      answered = response.status === 200 && body?.challenge === challenge;
    } catch {
      answered = false;
    }
    this.challenges.push({ listenerUrl: request.listenerUrl, answered });
    if (!answered) return null;
    const subscription: SandboxUspsSubscription = {
      id: randomUUID(),
      trackingNumbers: request.trackingNumbers.map(normalizeTrackingNumber),
      listenerUrl: request.listenerUrl,
      secret: request.secret,
      until: this.now().getTime() + USPS_PUSH_LIFETIME_MS,
    };
    this.#subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  get(id: string): SandboxUspsSubscription | undefined {
    const subscription = this.#subscriptions.get(id);
    return subscription && subscription.until > this.now().getTime() ? subscription : undefined;
  }

  delete(id: string): boolean {
    return this.#subscriptions.delete(id);
  }

  /** Live subscriptions, for tests. */
  list(): SandboxUspsSubscription[] {
    return [...this.#subscriptions.values()].filter((s) => s.until > this.now().getTime());
  }

  isSubscribed(trackingNumber: string): boolean {
    return this.covering(trackingNumber).length > 0;
  }

  notify(trackingNumber: string, event: PackageEvent, estimatedDeliveryAt: Date | null): void {
    const normalized = normalizeTrackingNumber(trackingNumber);
    const body = uspsV3Details(
      normalized,
      { trackingNumber: normalized, latest: event, history: [event], estimatedDeliveryAt },
      this.utcOffsetMinutes(),
    );
    for (const subscription of this.covering(normalized)) {
      // An event keeps the subscription alive: USPS drops it after ~25 days *without* events.
      subscription.until = this.now().getTime() + USPS_PUSH_LIFETIME_MS;
      const sending = this.post(subscription, normalized, event.at, body).finally(() => this.#inflight.delete(sending));
      this.#inflight.add(sending);
    }
  }

  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  clear(): void {
    this.#subscriptions.clear();
    this.challenges.length = 0;
  }

  private covering(trackingNumber: string): SandboxUspsSubscription[] {
    const normalized = normalizeTrackingNumber(trackingNumber);
    return this.list().filter((s) => s.trackingNumbers.includes(normalized));
  }

  private async signedPost(url: string, secret: string, body: unknown): Promise<Response> {
    const raw = JSON.stringify(body);
    const timestamp = String(Math.floor(this.now().getTime() / 1000));
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [USPS_TIMESTAMP_HEADER]: timestamp,
        [USPS_SIGNATURE_HEADER]: uspsSignature(secret, timestamp, raw),
      },
      body: raw,
      signal: AbortSignal.timeout(10_000),
    });
  }

  private async post(
    subscription: SandboxUspsSubscription,
    trackingNumber: string,
    eventAt: Date,
    body: unknown,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let status: number | null;
      try {
        const response = await this.signedPost(subscription.listenerUrl, subscription.secret, body);
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = null;
      }
      const ok = status !== null && status >= 200 && status < 300;
      this.deliveries.push({ carrier: 'usps', trackingNumber, eventAt, sentAt: this.now(), status });
      this.onPost(ok);
      const delay = RETRY_DELAYS_MS[attempt];
      if (ok || delay === undefined) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

const uspsError = (code: string, message: string) => ({ error: { code, message } });

export function uspsSubscriptionRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/usps/subscriptions-tracking/:version/subscriptions' });
  const subscriptions = state.push.usps;

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
