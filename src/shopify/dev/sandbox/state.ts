import { randomBytes } from 'node:crypto';
import { moneyToCents } from '../../../money.ts';

/**
 * What the Shopify sandbox remembers: issued tokens, app subscriptions and usage records, plus the
 * hooks tests use to make Shopify misbehave (hold or refuse refreshes, fail GraphQL calls).
 */
export interface SandboxSubscription {
  /** The numeric id: `gid://shopify/AppSubscription/{id}`, and the `charge_id` of the return URL. */
  id: number;
  shop: string;
  name: string;
  returnUrl: string;
  test: boolean;
  /** Tests set FROZEN or CANCELLED to stand for Shopify freezing (an unpaid store bill) or cancelling the plan. */
  status: 'PENDING' | 'ACTIVE' | 'DECLINED' | 'CANCELLED' | 'FROZEN';
  terms: string;
  cappedAmount: { amount: string; currencyCode: string };
  lineItemId: string;
  createdAt: Date;
}

export interface SandboxUsageRecord {
  id: string;
  shop: string;
  subscriptionId: number;
  lineItemId: string;
  /** Decimal string, as sent. */
  amount: string;
  currencyCode: string;
  description: string;
  idempotencyKey: string | null;
  createdAt: Date;
}

export interface SandboxGrant {
  shop: string;
  grant_type: string;
}

/** A product an app made with `productSet` (the setup guide's "Video message"). */
export interface SandboxProduct {
  id: number;
  shop: string;
  title: string;
  handle: string;
  status: string;
  /** The one variant's price, as Shopify writes money ("5.00"). */
  price: string;
  requiresShipping: boolean;
  /** Publication ids it is published to (the Online Store's, once published). */
  publications: string[];
}

export class ShopifySandboxState {
  /** Every access-token grant answered (authorization code, token exchange, refresh), in order. */
  readonly grants: SandboxGrant[] = [];
  /** Seconds until the next issued access token expires. */
  accessTokenLifetime = 3_600;
  /** Seconds until the next issued refresh token expires (Shopify: 90 days). */
  refreshTokenLifetime = 7_776_000;
  /** Refuses every refresh grant with `invalid_grant` (an expired or revoked refresh token). */
  refuseRefreshes = false;
  readonly subscriptions = new Map<number, SandboxSubscription>();
  readonly usageRecords: SandboxUsageRecord[] = [];

  /** refresh token → shop; rotating: each works once. */
  readonly refreshTokens = new Map<string, { shop: string; expiresAt: number }>();
  /** access token → shop and expiry. */
  readonly accessTokens = new Map<string, { shop: string; expiresAt: number }>();
  /** HTTP statuses the next GraphQL calls answer with instead of their result (`'throttled'`: Shopify's 200 + THROTTLED). */
  readonly graphqlFailures: Array<number | 'throttled'> = [];
  /** HTTP statuses the next GraphQL calls answer with after doing their work (the answer lost on the way). */
  readonly lostGraphqlAnswers: number[] = [];
  /** HTTP statuses the next access-token requests (code, token exchange, refresh) answer with instead. */
  readonly tokenFailures: number[] = [];
  /** Each shop's main theme's `templates/product.json` (Admin GraphQL `themes.files`): Dawn's, without our block, unless set. */
  readonly productTemplates = new Map<string, string>();
  /** Each shop's plan (Admin GraphQL `shop { plan }`): a paying "Basic" shop unless a test sets another. */
  readonly shopPlans = new Map<string, { partnerDevelopment: boolean; publicDisplayName: string }>();
  /** Each shop's primary locale (Admin GraphQL `shopLocales`): `en` unless a test sets another. */
  readonly primaryLocales = new Map<string, string>();
  /** Each shop's time zone (Admin GraphQL `shop { ianaTimezone }`): New York unless a test sets another. */
  readonly timeZones = new Map<string, string>();
  /** Each shop's orders (Admin GraphQL `order(id:)`), by numeric id: what a shop's Admin API knows. */
  readonly orders = new Map<string, Set<string>>();
  /** Every `order(id:)` asked, in order: which shop was asked about which order gid. */
  readonly orderLookUps: Array<{ shop: string; id: string }> = [];
  /** Products apps made (`productSet`), by numeric id. */
  readonly products = new Map<number, SandboxProduct>();
  private held: Promise<void> | null = null;
  private arrived: (() => void) | null = null;
  private nextId = 1;

  newId(): number {
    return this.nextId++;
  }

  issueTokens(shop: string) {
    const access = `shpat_${randomBytes(12).toString('hex')}`;
    const refresh = `shprt_${randomBytes(12).toString('hex')}`;
    const now = Date.now();
    this.accessTokens.set(access, { shop, expiresAt: now + this.accessTokenLifetime * 1000 });
    this.refreshTokens.set(refresh, { shop, expiresAt: now + this.refreshTokenLifetime * 1000 });
    return {
      access_token: access,
      scope: 'read_orders,read_fulfillments,read_locales',
      expires_in: this.accessTokenLifetime,
      refresh_token: refresh,
      refresh_token_expires_in: this.refreshTokenLifetime,
    };
  }

  /** The shop an Admin API access token belongs to, while it is valid. */
  shopOfAccessToken(token: string): string | null {
    const known = this.accessTokens.get(token);
    return known && known.expiresAt > Date.now() ? known.shop : null;
  }

  /**
   * Holds the next refresh-grant answers in flight until `release` (so a test knows a refresh is
   * under way while it starts a competitor); `arrived` resolves when the first held request comes in.
   */
  holdRefreshes(): { arrived: Promise<void>; release(): void } {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    const arrival = new Promise<void>((resolve) => (this.arrived = resolve));
    return {
      arrived: arrival,
      release: () => {
        this.held = null;
        release();
      },
    };
  }

  /** Resolves when a held refresh may be answered (at once when nothing is held). */
  refreshArrived(): Promise<void> {
    this.arrived?.();
    return this.held ?? Promise.resolve();
  }

  /** An order placed in the shop: its Admin API knows it from now on (and no other shop's does). */
  placeOrder(shop: string, orderId: number | string): void {
    const orders = this.orders.get(shop) ?? new Set<string>();
    orders.add(String(orderId));
    this.orders.set(shop, orders);
  }

  /** The next `times` GraphQL calls fail with `failure`. */
  failGraphql(failure: number | 'throttled', times = 1): void {
    for (let i = 0; i < times; i++) this.graphqlFailures.push(failure);
  }

  /**
   * The next `times` GraphQL calls are carried out, then answered with HTTP `status`: Shopify made
   * the record, but its answer never reached the app (a timeout, a 5xx on the way back).
   */
  loseGraphqlAnswers(status: number, times = 1): void {
    for (let i = 0; i < times; i++) this.lostGraphqlAnswers.push(status);
  }

  /** The next `times` access-token requests fail with HTTP `status` (Shopify's OAuth endpoint down). */
  failTokenRequests(status: number, times = 1): void {
    for (let i = 0; i < times; i++) this.tokenFailures.push(status);
  }

  /** The merchant's answer on the approval page. */
  answerApproval(id: number, approve: boolean): SandboxSubscription | undefined {
    const subscription = this.subscriptions.get(id);
    if (!subscription || subscription.status !== 'PENDING') return subscription;
    subscription.status = approve ? 'ACTIVE' : 'DECLINED';
    return subscription;
  }

  /** What the subscription's usage records add up to, in cents. */
  balanceUsedCents(subscriptionId: number): number {
    return this.usageRecords
      .filter((record) => record.subscriptionId === subscriptionId)
      .reduce((sum, record) => sum + decimalCents(record.amount), 0);
  }
}

/** A decimal amount in cents, NaN when it is not one (the sandbox answers that with a userError). */
export function decimalCents(amount: string): number {
  try {
    return moneyToCents(amount);
  } catch {
    return Number.NaN;
  }
}
