import type { CarrierCode } from '../carrier-code.ts';
import type { PackageEvent } from './packages.ts';
import { upsTrackingEvent } from './ups-track-alert-event.ts';
import { SandboxUspsSubscriptions } from './usps-subscription-store.ts';
import { SandboxFedexAiv } from './fedex-aiv-store.ts';
import { postWithRetries, type PushDelivery } from './push-posts.ts';

export type { PushDelivery };

/** Where and how the fake carrier calls the subscriber back (UPS: "Manage Webhook Credentials"). */
export interface WebhookRegistration {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The push side of the fake carriers: live subscriptions per number and the webhook registration;
 * `notify` posts a scripted event to the subscriber, as the carrier would, retrying a failed post a
 * few times. Only UPS has a documented push wire format here (docs/tracking.md "Push").
 */
export class SandboxPush {
  readonly #subscriptions = new Map<string, number>();
  readonly #webhooks = new Map<CarrierCode, WebhookRegistration>();
  readonly #tokens = new Map<CarrierCode, { value: string; refreshAt: number }>();
  readonly #inflight = new Set<Promise<void>>();
  readonly deliveries: PushDelivery[] = [];
  /** USPS Subscriptions-Tracking: listener and secret come with each subscription, not a registration. */
  readonly usps: SandboxUspsSubscriptions;
  /** FedEx AIV: the webhook project, association jobs and associated numbers. */
  readonly fedex: SandboxFedexAiv;

  constructor(
    private readonly now: () => Date,
    private readonly utcOffsetMinutes: () => number,
    private readonly onPost: (carrier: CarrierCode, ok: boolean) => void,
  ) {
    this.usps = new SandboxUspsSubscriptions(now, this.deliveries, (ok) => onPost('usps', ok));
    this.fedex = new SandboxFedexAiv(now, this.deliveries, (ok) => onPost('fedex', ok));
  }

  register(carrier: CarrierCode, webhook: WebhookRegistration): void {
    this.#webhooks.set(carrier, webhook);
    this.#tokens.delete(carrier);
  }

  subscribe(carrier: CarrierCode, trackingNumber: string, until: Date): void {
    this.#subscriptions.set(`${carrier}:${trackingNumber}`, until.getTime());
  }

  isSubscribed(carrier: CarrierCode, trackingNumber: string): boolean {
    if (carrier === 'usps') return this.usps.isSubscribed(trackingNumber);
    if (carrier === 'fedex') return this.fedex.isSubscribed(trackingNumber);
    return (this.#subscriptions.get(`${carrier}:${trackingNumber}`) ?? 0) > this.now().getTime();
  }

  /** A new scripted event: posted to the subscriber when the number is subscribed and a webhook registered. */
  notify(carrier: CarrierCode, trackingNumber: string, event: PackageEvent, estimatedDeliveryAt: Date | null): void {
    if (carrier === 'usps') return this.usps.notify(trackingNumber, event, estimatedDeliveryAt);
    if (carrier === 'fedex') return this.fedex.notify(trackingNumber, event);
    const webhook = this.#webhooks.get(carrier);
    if (carrier !== 'ups' || !webhook || !this.isSubscribed(carrier, trackingNumber)) return;
    const body = upsTrackingEvent(trackingNumber, event, estimatedDeliveryAt, this.utcOffsetMinutes());
    const sending = this.post(carrier, webhook, trackingNumber, event.at, body).finally(() =>
      this.#inflight.delete(sending),
    );
    this.#inflight.add(sending);
  }

  /** Resolves when every post under way has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
    await this.usps.settled();
    await this.fedex.settled();
  }

  clear(): void {
    this.#subscriptions.clear();
    this.#webhooks.clear();
    this.#tokens.clear();
    this.usps.clear();
    this.fedex.clear();
    this.deliveries.length = 0;
  }

  private post(
    carrier: CarrierCode,
    webhook: WebhookRegistration,
    trackingNumber: string,
    eventAt: Date,
    body: unknown,
  ): Promise<void> {
    return postWithRetries({
      carrier,
      trackingNumber,
      eventAt,
      now: this.now,
      deliveries: this.deliveries,
      onPost: (ok) => this.onPost(carrier, ok),
      send: async () => {
        const token = await this.token(carrier, webhook);
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'x-api-key': webhook.clientId,
            'user-agent': 'UPSPubSubTrackingService',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status === 401) this.#tokens.delete(carrier);
        return response;
      },
    });
  }

  /** Client credentials at the subscriber's token URL (the spec's `clientOauth2`, client_secret_basic). */
  private async token(carrier: CarrierCode, webhook: WebhookRegistration): Promise<string> {
    const cached = this.#tokens.get(carrier);
    if (cached && cached.refreshAt > Date.now()) return cached.value;
    const response = await fetch(webhook.tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${webhook.clientId}:${webhook.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!response.ok || !answer.access_token) throw new Error(`token URL answered ${response.status}`);
    const lifetimeMs = Number(answer.expires_in ?? 60) * 1000;
    this.#tokens.set(carrier, { value: answer.access_token, refreshAt: Date.now() + lifetimeMs / 2 });
    return answer.access_token;
  }
}
