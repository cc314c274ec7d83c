import { randomBytes, randomUUID } from 'node:crypto';
import {
  uspsSignature,
  USPS_PUSH_LIFETIME_MS,
  USPS_SIGNATURE_HEADER,
  USPS_TIMESTAMP_HEADER,
} from '../clients/usps-subscriptions.ts';
import { normalizeTrackingNumber, type PackageEvent } from './packages.ts';
import { postWithRetries, type PushDelivery } from './push-posts.ts';

/**
 * The fake USPS Subscriptions-Tracking's state: subscriptions (each with its listener and secret),
 * the signed challenge on create, and signed notifications. Kept apart from the routes
 * (usps-subscriptions.ts) so SandboxPush can own it without an import cycle; the routes install the
 * notification renderer (the Tracking v3 `TrackingDetails` of the one event, assumption A1).
 */

type Render = (trackingNumber: string, event: PackageEvent, estimatedDeliveryAt: Date | null) => unknown;

export interface SandboxUspsSubscription {
  id: string;
  trackingNumbers: string[];
  listenerUrl: string;
  secret: string;
  /** Lapses at this time unless an event moves it on (25 days after the last event). */
  until: number;
}

export class SandboxUspsSubscriptions {
  readonly #subscriptions = new Map<string, SandboxUspsSubscription>();
  readonly #inflight = new Set<Promise<void>>();
  /** Challenges sent and whether the listener echoed them, for tests. */
  readonly challenges: { listenerUrl: string; answered: boolean }[] = [];

  /** Set by the routes (usps-subscriptions.ts); without it nothing is posted. */
  render: Render | null = null;

  constructor(
    private readonly now: () => Date,
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
    if (!this.render) return;
    const body = this.render(normalized, event, estimatedDeliveryAt);
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

  private post(
    subscription: SandboxUspsSubscription,
    trackingNumber: string,
    eventAt: Date,
    body: unknown,
  ): Promise<void> {
    return postWithRetries({
      carrier: 'usps',
      trackingNumber,
      eventAt,
      now: this.now,
      deliveries: this.deliveries,
      onPost: this.onPost,
      send: () => this.signedPost(subscription.listenerUrl, subscription.secret, body),
    });
  }
}
