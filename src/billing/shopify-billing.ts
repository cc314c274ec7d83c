import { sql, type Selectable, type Transaction } from 'kysely';
import { findAccount } from '../accounts/accounts.ts';
import type { Db } from '../db/database.ts';
import type { Database, ShopifySubscriptionsTable, ShopifyUsageChargesTable } from '../db/schema.ts';
import { NotFoundError, ServiceUnavailableError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { isEvent, type OrderEventSubscriber } from '../orders/order-events.ts';
import { formatTimestamp } from '../orders/serializer.ts';
import { addWithin } from '../queues/queues.ts';
import type { ShopifyServices } from '../shopify/services.ts';
import { fetchShopPlan, type ShopPlan } from '../shopify/admin-api.ts';
import { chargesAreTests } from './test-charges.ts';
import { findShop, parseShopDomain, type ShopRow } from '../shopify/shops.ts';
import type { ShopifySubscriptionStatus } from '../vocabulary.ts';
import { createUsageRecord, createUsageSubscription, fetchSubscriptionStatus } from './billing-api.ts';
import type { ShopifyBillingConfig } from './shopify-config.ts';
import { statementPeriod } from './statements.ts';
import {
  BILLING_CURRENCY,
  billingNotice,
  chargeOutcome,
  effectiveShareBps,
  formatShare,
  formatUsd,
  initialChargeStatus,
  MAY_HAVE_BEEN_CHARGED_REASONS,
  mayChargeOnPlan,
  monthOf,
  monthTotals,
  shouldCreateSubscriptionOnOpen,
  subscriptionStatusFromShopify,
  subscriptionTerms,
  usageChargeCents,
  type ChargeOutcome,
  type MonthTotals,
  PLAN_ENDED_AFTER_ATTEMPT_REASON,
  unbillableCurrencyReason,
  UNINSTALLED_AFTER_ATTEMPT_REASON,
  UNINSTALLED_REASON,
} from './usage-charges.ts';
import { signedAdminUrl } from '../shopify/auth/admin-url.ts';

export type SubscriptionRow = Selectable<ShopifySubscriptionsTable>;
export type UsageChargeRow = Selectable<ShopifyUsageChargesTable>;

/** Hands a pending charge to the `billing` queue (src/queues/queues.ts); `delayMs` lets its transaction commit first. */
export type EnqueueUsageCharge = (orderId: string, options?: { delayMs?: number }) => Promise<void>;

export interface ShopifyBillingDeps {
  db: Db;
  shopify: ShopifyServices;
  config: ShopifyBillingConfig;
  logger: Logger;
  now: () => Date;
  /** Absent (a CLI process): pending charges wait for the workers' reconciler. */
  enqueue?: EnqueueUsageCharge;
}

/** The subscription's name on Shopify's approval page and in the merchant's Shopify bill. */
export const PLAN_NAME = 'Doorstep revenue share';

/** A charge's job ran before the transaction that wrote the charge committed (or that rolled back). */
export class ChargeNotReadyError extends ServiceUnavailableError {
  override name = 'ChargeNotReadyError';
}

/** `GET /shopify/api/billing` (docs/shopify.md, "Billing"; the contract in the admin API brief). */
export interface BillingJson {
  subscription: {
    status: ShopifySubscriptionStatus | 'none';
    capped_amount_cents: number;
    currency: string;
    terms: string;
    revenue_share_bps: number;
    confirmation_url: string | null;
    approved_at: string | null;
    /** A test charge: nothing is billed (a development or review store, or SHOPIFY_BILLING_TEST=on). */
    test: boolean;
  };
  month: { month: string } & MonthTotals;
  notice: string | null;
}

export interface MonthBill extends MonthTotals {
  shop: string;
  month: string;
  subscription_status: ShopifySubscriptionStatus | 'none';
  charges: Array<{
    order_id: string;
    status: UsageChargeRow['status'];
    price_cents: number | null;
    amount_cents: number;
    /** The order's currency: amounts are in its minor units; only USD is billed. */
    currency: string;
    shortfall_cents: number;
    sent_at: string;
    usage_record_id: string | null;
    /** Why it is not charged (Shopify's refusal, no plan, may already be charged …) or, pending, what last failed; null once recorded. */
    reason: string | null;
  }>;
}

const ENQUEUE_TIMEOUT_MS = 1_000;
/** Pending charges the reconciler looks at per run (a minute). */
const RECONCILE_BATCH = 500;
/** The subscriber enqueues inside its transaction: the job waits this long so the row has committed. */
const COMMIT_GRACE_MS = 300;

/**
 * Revenue share for Shopify shops through Shopify's Billing API: a usage subscription with a capped
 * amount, approved by the merchant, and one usage record per sent video (idempotency key: the
 * order id). The only writer of `shopify_subscriptions` and `shopify_usage_charges`.
 */
export class ShopifyBilling {
  private readonly creating = new Map<string, Promise<SubscriptionRow>>();

  constructor(private readonly deps: ShopifyBillingDeps) {}

  /**
   * `order.sent` of a Shopify shop's order → one charge row (the order id is its key, so a
   * redelivered event or a second channel's `order.sent` changes nothing). Safe to run again.
   */
  orderSubscriber(): OrderEventSubscriber {
    return {
      name: 'billing',
      events: ['order.sent'],
      handle: async (trx, order, delivered) => {
        if (!isEvent(delivered, 'order.sent')) return;
        const shop = await trx
          .selectFrom('shops')
          .select('domain')
          .where('account_id', '=', order.account_id)
          .orderBy('domain')
          .limit(1)
          .executeTakeFirst();
        // API accounts are billed by their monthly statement (./statements.ts), not through Shopify.
        if (!shop) return;
        const account = await findAccount(trx, order.account_id);
        const share = effectiveShareBps(account?.revenueShareBps ?? null, this.deps.config.revenueShareBps);
        const amount = usageChargeCents(order.price, share);
        // The Shopify order's currency (kept by the shopify module on its link); none: USD.
        const link = await trx
          .selectFrom('shopify_order_links')
          .select('currency')
          .where('order_id', '=', order.id)
          .where('currency', 'is not', null)
          .executeTakeFirst();
        const currency = link?.currency ?? BILLING_CURRENCY;
        const currencyReason = unbillableCurrencyReason(currency);
        const status = initialChargeStatus(amount, currencyReason);
        const now = this.deps.now();
        const inserted = await trx
          .insertInto('shopify_usage_charges')
          .values({
            order_id: order.id,
            shop: shop.domain,
            account_id: order.account_id,
            price_cents: order.price,
            revenue_share_bps: share,
            amount_cents: amount,
            currency,
            status,
            last_error: currencyReason,
            sent_at: order.sent_at ?? new Date(delivered.event.sent_at),
            created_at: now,
            updated_at: now,
            settled_at: status === 'pending' ? null : now,
          })
          .onConflict((oc) => oc.column('order_id').doNothing())
          .returning('status')
          .executeTakeFirst();
        if (inserted?.status === 'pending') await this.enqueue(order.id, COMMIT_GRACE_MS);
      },
    };
  }

  /** `GET /shopify/api/billing`: creates the subscription on the shop's first visit. */
  async billing(shop: ShopRow): Promise<BillingJson> {
    let subscription = await this.askedSubscription(shop);
    if (shouldCreateSubscriptionOnOpen(subscription?.status ?? null)) {
      subscription = await this.createSubscriptionOnce(shop).catch((error: unknown) => {
        // The page must open even when Shopify cannot be reached: the notice asks for approval.
        this.deps.logger.warn({ err: error, shop: shop.domain }, 'could not create the Shopify subscription');
        return undefined;
      });
    }
    return this.billingJson(shop, subscription);
  }

  /**
   * `POST /shopify/api/billing/subscribe`: a new subscription (after a decline or cancellation).
   * A plan still waiting for approval is that plan (asked of Shopify first: the merchant may have
   * answered without coming back): a second one would leave two to approve.
   */
  async subscribe(shop: ShopRow): Promise<BillingJson> {
    const current = await this.askedSubscription(shop);
    if (current?.status === 'active' || current?.status === 'pending') return this.billingJson(shop, current);
    return this.billingJson(shop, await this.createSubscriptionOnce(shop));
  }

  /**
   * The current plan, asked of Shopify when ours may be stale (kept as it is when Shopify cannot
   * be reached: the page must open):
   * - pending: the merchant may have approved without coming back through the return URL;
   * - active but older than this install: Shopify cancels an app's subscriptions at uninstall;
   * - active or frozen with unbilled videos this month: Shopify may have frozen, cancelled or
   *   unfrozen the plan since we last asked (an unfrozen plan bills the month's debt).
   */
  private async askedSubscription(shop: ShopRow): Promise<SubscriptionRow | undefined> {
    const known = await this.currentSubscription(shop.domain);
    if (!known) return undefined;
    const stale =
      known.status === 'pending' ||
      (known.status === 'active' && known.created_at < shop.installed_at) ||
      ((known.status === 'active' || known.status === 'frozen') && (await this.hasUnbilledThisMonth(shop.domain)));
    if (!stale) return known;
    return this.refreshStatus(known).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, shop: shop.domain }, 'could not ask Shopify about the subscription');
      return known;
    });
  }

  /**
   * Shopify sends the merchant back to `returnUrl` with `charge_id` after approving or declining.
   * The query proves nothing (it is a public URL), so the status is asked of Shopify. Returns where
   * the merchant goes next: the app in the shop's admin.
   */
  async returnFromApproval(shopParam: unknown, chargeIdParam: unknown): Promise<string> {
    const domain = parseShopDomain(shopParam);
    const chargeId = String(chargeIdParam ?? '');
    // A charge id missing, mangled or not ours still takes the merchant back to the app, whose billing
    // card says where the plan stands: this is a page in their browser, not an API (merchant probe: a
    // JSON 404 or 422 page). Only a shop we cannot read has nowhere to go back to.
    const subscription = /^\d{1,20}$/.test(chargeId)
      ? await this.deps.db
          .selectFrom('shopify_subscriptions')
          .selectAll()
          .where('shop', '=', domain)
          .where('id', '=', `gid://shopify/AppSubscription/${chargeId}`)
          .executeTakeFirst()
      : undefined;
    if (!subscription)
      this.deps.logger.info({ shop: domain }, 'billing return without a charge of ours; back to the app');
    else
      await this.refreshStatus(subscription).catch((error: unknown) => {
        // Shopify (or our token) failed: the merchant still goes back to the app, whose billing
        // page asks Shopify about the pending plan when it opens.
        if (!(error instanceof ServiceUnavailableError)) throw error;
        this.deps.logger.warn({ err: error, shop: domain }, 'could not ask Shopify about the approved plan');
      });
    const { config } = this.deps.shopify;
    // On the built-in development credentials there is no Shopify admin to go back to (the
    // approval page is the local Shopify sandbox): the merchant goes to the admin opened locally,
    // signed as `npm run cli -- shopify admin-url` would (that secret is public anyway).
    if (config.development)
      return signedAdminUrl({
        publicUrl: config.appUrl,
        shop: domain,
        apiKey: config.apiKey,
        apiSecret: config.apiSecret,
        now: this.deps.now(),
      });
    return `https://${domain}/admin/apps/${encodeURIComponent(config.apiKey)}`;
  }

  /**
   * The `billing` job: one usage record for a pending charge. Throws (the queue retries with
   * backoff) on anything Shopify may answer differently later: network, 5xx, throttling, no token
   * (`ShopNotConnectedError`: the next embedded load exchanges a new one).
   */
  async recordCharge(orderId: string, lookedAgain = false): Promise<UsageChargeRow['status']> {
    const { db, shopify, now } = this.deps;
    const charge = await db
      .selectFrom('shopify_usage_charges')
      .selectAll()
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    if (!charge) throw new ChargeNotReadyError(`No usage charge for order ${orderId} yet.`);
    if (charge.status !== 'pending') return charge.status;
    // Charges of other currencies start unbilled and are never re-opened; this only guards that.
    const currencyReason = unbillableCurrencyReason(charge.currency);
    if (currencyReason) return this.settle(charge, null, { status: 'unbilled', reason: currencyReason });
    // Shopify cancels an app's subscriptions when the shop uninstalls it (paid videos still send).
    // After an attempt that may have reached Shopify it is never re-opened (no double charge).
    const shop = await findShop(db, charge.shop);
    if (!shop?.active)
      return this.settle(charge, null, {
        status: 'unbilled',
        reason: charge.attempts > 0 ? UNINSTALLED_AFTER_ATTEMPT_REASON : UNINSTALLED_REASON,
      });
    const subscription = await this.currentSubscription(charge.shop);
    if (subscription?.status !== 'active') {
      // After an attempt that may have reached Shopify, as at uninstall: never re-opened by a later plan.
      const reason =
        charge.attempts > 0
          ? PLAN_ENDED_AFTER_ATTEMPT_REASON
          : `No active Shopify subscription (${subscription?.status ?? 'none'}).`;
      const unbilled = await this.settle(charge, null, { status: 'unbilled', reason }, { unlessPlanActive: true });
      if (unbilled !== 'pending') return unbilled;
      // A plan became active after we looked: the charge is still pending, so charge it now.
      if (lookedAgain) throw new ChargeNotReadyError(`The plan of ${charge.shop} changed while charging ${orderId}.`);
      return this.recordCharge(orderId, true);
    }
    // The plan was replaced while this charge waited out a failed attempt: not charged on the new one.
    if (!mayChargeOnPlan({ attempts: charge.attempts, subscriptionId: charge.subscription_id }, subscription.id))
      return this.settle(charge, null, { status: 'unbilled', reason: PLAN_ENDED_AFTER_ATTEMPT_REASON });
    let outcome: ChargeOutcome;
    let planStillActive = true;
    try {
      const token = await shopify.tokens.accessToken(charge.shop);
      const answer = await createUsageRecord(shopify.library, token, charge.shop, {
        lineItemId: subscription.line_item_id,
        amountCents: charge.amount_cents,
        description: chargeDescription(charge),
        idempotencyKey: charge.order_id,
      });
      outcome = chargeOutcome(answer, charge.amount_cents);
      // Refused, not for the cap: our "active" may be stale (Shopify froze, cancelled or replaced
      // the plan). Asked again, so the plan's real status shows and a later activation re-opens
      // this charge; a plan Shopify no longer knows leaves the refusal as it is.
      if (outcome.status === 'unbilled')
        planStillActive = await this.refreshStatus(subscription).then(
          (refreshed) => refreshed.status === 'active',
          (error: unknown) => {
            if (error instanceof NotFoundError) return true;
            throw error;
          },
        );
    } catch (error) {
      await db
        .updateTable('shopify_usage_charges')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          // The plan this attempt may have charged: a retry goes to it or to none (mayChargeOnPlan).
          subscription_id: subscription.id,
          last_error: (error instanceof Error ? error.message : String(error)).slice(0, 1_000),
          updated_at: now(),
        }))
        .where('order_id', '=', orderId)
        .where('status', '=', 'pending')
        .execute();
      throw error;
    }
    if (!planStillActive) {
      // The plan is no longer active: decided again as "no active plan" (unbilled unless another plan is active).
      if (lookedAgain) throw new ChargeNotReadyError(`The plan of ${charge.shop} changed while charging ${orderId}.`);
      return this.recordCharge(orderId, true);
    }
    return this.settle(charge, subscription.id, outcome);
  }

  /**
   * Reconciler step: pending charges whose job is gone (Redis lost it) or gave up (failed, or
   * finished while the charge is pending again) go to the queue again; a job that waits or waits
   * out its backoff is left alone (addRerunnableJob), so the backoff holds. The least recently
   * tried first: every attempt touches `updated_at`, so charges that keep failing (a shop without
   * a token) take their turn behind the others instead of filling every batch.
   */
  async reconcile(): Promise<void> {
    const pending = await this.deps.db
      .selectFrom('shopify_usage_charges')
      .select('order_id')
      .where('status', '=', 'pending')
      .orderBy('updated_at')
      .orderBy('order_id')
      .limit(RECONCILE_BATCH)
      .execute();
    for (const { order_id } of pending) await this.enqueue(order_id);
  }

  /** This month's (or `month`'s) bill of a shop, for the CLI and the admin. */
  async monthBill(shopParam: unknown, month = monthOf(this.deps.now())): Promise<MonthBill> {
    return shopifyMonthBill(this.deps.db, shopParam, month);
  }

  async currentSubscription(domain: string): Promise<SubscriptionRow | undefined> {
    return currentSubscription(this.deps.db, domain);
  }

  private async hasUnbilledThisMonth(domain: string): Promise<boolean> {
    const period = statementPeriod(monthOf(this.deps.now()));
    const unbilled = await this.deps.db
      .selectFrom('shopify_usage_charges')
      .select('order_id')
      .where('shop', '=', domain)
      .where('status', '=', 'unbilled')
      // Other currencies' videos are never billed, nor those that may have been: no reason to ask Shopify.
      .where('currency', '=', BILLING_CURRENCY)
      .where((eb) => eb.or([eb('last_error', 'is', null), eb('last_error', 'not in', MAY_HAVE_BEEN_CHARGED_REASONS)]))
      .where('sent_at', '>=', period.start)
      .where('sent_at', '<', period.end)
      .limit(1)
      .executeTakeFirst();
    return unbilled !== undefined;
  }

  private async chargesIn(domain: string, start: Date, end: Date): Promise<UsageChargeRow[]> {
    return chargesIn(this.deps.db, domain, start, end);
  }

  private async billingJson(shop: ShopRow, subscription: SubscriptionRow | undefined): Promise<BillingJson> {
    const period = statementPeriod(monthOf(this.deps.now()));
    const totals = monthTotals(await this.chargesIn(shop.domain, period.start, period.end));
    const plan = subscription
      ? {
          status: subscription.status,
          capped_amount_cents: subscription.capped_amount_cents,
          currency: subscription.currency,
          terms: subscription.terms,
          revenue_share_bps: subscription.revenue_share_bps,
          confirmation_url: subscription.status === 'pending' ? subscription.confirmation_url : null,
          approved_at: subscription.approved_at ? formatTimestamp(subscription.approved_at) : null,
          test: subscription.test,
        }
      : await this.proposedPlan(shop);
    return {
      subscription: plan,
      month: { month: period.month, ...totals },
      notice: billingNotice({ status: plan.status, cappedAmountCents: plan.capped_amount_cents }, totals),
    };
  }

  private async proposedPlan(shop: ShopRow): Promise<BillingJson['subscription']> {
    const share = await this.shareOf(shop);
    return {
      status: 'none',
      capped_amount_cents: this.deps.config.cappedAmountCents,
      currency: BILLING_CURRENCY,
      terms: subscriptionTerms(share, this.deps.config.cappedAmountCents),
      revenue_share_bps: share,
      confirmation_url: null,
      approved_at: null,
      test: this.deps.config.test,
    };
  }

  private async shareOf(shop: ShopRow): Promise<number> {
    const account = await findAccount(this.deps.db, shop.account_id);
    return effectiveShareBps(account?.revenueShareBps ?? null, this.deps.config.revenueShareBps);
  }

  /** One creation per shop at a time in this process (the page and a reload must not make two). */
  private createSubscriptionOnce(shop: ShopRow): Promise<SubscriptionRow> {
    const running = this.creating.get(shop.domain);
    if (running) return running;
    const created = this.createSubscription(shop).finally(() => this.creating.delete(shop.domain));
    this.creating.set(shop.domain, created);
    return created;
  }

  private async createSubscription(shop: ShopRow): Promise<SubscriptionRow> {
    const { db, shopify, config, now } = this.deps;
    const share = await this.shareOf(shop);
    const terms = subscriptionTerms(share, config.cappedAmountCents);
    const token = await shopify.tokens.accessToken(shop.domain);
    // With every plan a test by the setting, the shop's own plan need not be asked.
    const test = chargesAreTests(config.test, config.test ? null : await this.shopPlan(shop.domain, token));
    const created = await createUsageSubscription(shopify.library, token, shop.domain, {
      name: PLAN_NAME,
      returnUrl: `${shopify.config.appUrl}/shopify/billing/return?shop=${encodeURIComponent(shop.domain)}`,
      test,
      terms,
      cappedAmountCents: config.cappedAmountCents,
    });
    const at = now();
    const row = await db
      .insertInto('shopify_subscriptions')
      .values({
        id: created.id,
        shop: shop.domain,
        account_id: shop.account_id,
        line_item_id: created.lineItemId,
        status: subscriptionStatusFromShopify(created.status),
        capped_amount_cents: config.cappedAmountCents,
        currency: BILLING_CURRENCY,
        terms,
        revenue_share_bps: share,
        test,
        confirmation_url: created.confirmationUrl,
        created_at: at,
        updated_at: at,
      })
      // Another process created one meanwhile (one pending plan per shop: migration 010): that one
      // is the plan to approve; ours stays unapproved at Shopify, which expires it.
      .onConflict((oc) => oc.column('shop').where('status', '=', 'pending').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      this.deps.logger.info(
        { shop: shop.domain, subscription: created.id },
        'another process created the pending Shopify subscription first; using that one',
      );
      const pending = await db
        .selectFrom('shopify_subscriptions')
        .selectAll()
        .where('shop', '=', shop.domain)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      // It was answered in the meantime: the current plan is whatever that made it.
      return pending ?? (await this.currentSubscription(shop.domain))!;
    }
    this.deps.logger.info({ shop: shop.domain, subscription: created.id, test }, 'created the Shopify subscription');
    return row;
  }

  /** The shop's plan, to tell a development or review store (test charges only); null when Shopify does not say. */
  private async shopPlan(domain: string, token: string): Promise<ShopPlan | null> {
    try {
      return await fetchShopPlan(this.deps.shopify.library, token, domain);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, shop: domain },
        'could not read the shop plan; charges follow SHOPIFY_BILLING_TEST',
      );
      return null;
    }
  }

  /** Asks Shopify for the subscription's status and stores it; activation bills the month's debt. */
  private async refreshStatus(subscription: SubscriptionRow): Promise<SubscriptionRow> {
    const { db, shopify, now } = this.deps;
    const token = await shopify.tokens.accessToken(subscription.shop);
    const answer = await fetchSubscriptionStatus(shopify.library, token, subscription.shop, subscription.id);
    if (answer === null) throw new NotFoundError(`Shopify does not know the subscription ${subscription.id}.`);
    const status = subscriptionStatusFromShopify(answer);
    if (status === subscription.status) return subscription;
    const at = now();
    // Under the shop's billing lock: a charge being marked unbilled ("no active plan") either
    // commits before this (and is re-opened below) or waits and then sees the plan active.
    const { updated, reopened } = await db.transaction().execute(async (trx) => {
      await lockShopBilling(trx, subscription.shop);
      const updated = await trx
        .updateTable('shopify_subscriptions')
        .set({
          status,
          updated_at: at,
          ...(status === 'active' && !subscription.approved_at ? { approved_at: at } : {}),
          ...(['declined', 'cancelled', 'expired'].includes(status) ? { ended_at: at } : {}),
        })
        .where('id', '=', subscription.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const reopened = status === 'active' ? await reopenUnbilledOfMonth(trx, subscription.shop, at) : [];
      return { updated, reopened };
    });
    this.deps.logger.info(
      { shop: subscription.shop, subscription: subscription.id, status },
      'Shopify subscription status',
    );
    for (const orderId of reopened) await this.enqueue(orderId);
    return updated;
  }

  /**
   * Stores the outcome on a still-pending charge; returns the charge's status afterwards. With
   * `unlessPlanActive` ("no plan") it is stored only while no plan is active: a plan activated
   * meanwhile (whose activation re-opens the month's unbilled charges) must not miss this one, so
   * the charge then stays `pending`.
   */
  private async settle(
    charge: UsageChargeRow,
    subscriptionId: string | null,
    outcome: ChargeOutcome,
    options: { unlessPlanActive?: boolean } = {},
  ): Promise<UsageChargeRow['status']> {
    const at = this.deps.now();
    const result = await this.deps.db.transaction().execute(async (trx) => {
      // "No plan" is decided under the shop's billing lock, which an activation also takes.
      if (options.unlessPlanActive) await lockShopBilling(trx, charge.shop);
      return trx
        .updateTable('shopify_usage_charges')
        .set({
          status: outcome.status,
          subscription_id: subscriptionId,
          usage_record_id: outcome.status === 'recorded' ? outcome.usageRecordId : null,
          shortfall_cents: outcome.status === 'over_cap' ? outcome.shortfallCents : 0,
          last_error: outcome.status === 'recorded' ? null : outcome.reason.slice(0, 1_000),
          settled_at: at,
          updated_at: at,
        })
        .where('order_id', '=', charge.order_id)
        .where('status', '=', 'pending')
        .where(({ not, exists, selectFrom }) =>
          options.unlessPlanActive
            ? not(
                exists(
                  selectFrom('shopify_subscriptions')
                    .select('id')
                    .where('shop', '=', charge.shop)
                    .where('status', '=', 'active'),
                ),
              )
            : sql<boolean>`true`,
        )
        .executeTakeFirst();
    });
    if (Number(result.numUpdatedRows) === 0) {
      const now = await this.deps.db
        .selectFrom('shopify_usage_charges')
        .select('status')
        .where('order_id', '=', charge.order_id)
        .executeTakeFirstOrThrow();
      return now.status;
    }
    if (outcome.status === 'over_cap')
      this.deps.logger.warn({ shop: charge.shop, orderId: charge.order_id }, 'usage charge over the capped amount');
    return outcome.status;
  }

  /** Best effort: a failed or slow enqueue is left to the reconciler (the row is in PostgreSQL). */
  private async enqueue(orderId: string, delayMs?: number): Promise<void> {
    const { enqueue, logger } = this.deps;
    if (!enqueue) return;
    await addWithin(
      () => enqueue(orderId, delayMs === undefined ? {} : { delayMs }),
      ENQUEUE_TIMEOUT_MS,
      (error) => logger.warn({ err: error, orderId }, 'could not enqueue the usage charge; the reconciler will'),
    );
  }
}

/** What the merchant reads on their Shopify bill: no personal data, just the order and the math. */
export function chargeDescription(
  charge: Pick<UsageChargeRow, 'order_id' | 'price_cents' | 'revenue_share_bps'>,
): string {
  return `Video gift message sent (order ${charge.order_id}): ${formatShare(charge.revenue_share_bps)} of ${formatUsd(charge.price_cents ?? 0)}`;
}

/**
 * The subscription that counts: the active one (Shopify keeps at most one active per app and
 * shop), else the latest by approval or creation. A newer plan that is not active (pending,
 * declined) never hides an active one: charges go to the plan the merchant approved.
 */
export async function currentSubscription(db: Db, domain: string): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('shopify_subscriptions')
    .selectAll()
    .where('shop', '=', domain)
    .orderBy(sql`status = 'active'`, 'desc')
    .orderBy(sql`coalesce(approved_at, created_at)`, 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/**
 * Serializes, per shop, marking a charge unbilled because no plan is active and a plan becoming
 * active (which re-opens the month's unbilled charges). Under READ COMMITTED each would otherwise
 * miss the other's uncommitted write. A transaction-scoped advisory lock: no row needs to exist.
 */
export async function lockShopBilling(trx: Transaction<Database>, domain: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`billing:${domain}`}))`.execute(trx);
}

/**
 * The plan approved this month covers this month's videos that were sent while no plan was
 * active: they are charged now (the idempotency key still keeps each to one record). Earlier
 * months' debts stay shown, never charged retroactively. Returns the re-opened orders.
 */
async function reopenUnbilledOfMonth(trx: Transaction<Database>, domain: string, at: Date): Promise<string[]> {
  const period = statementPeriod(monthOf(at));
  const reopened = await trx
    .updateTable('shopify_usage_charges')
    .set({ status: 'pending', settled_at: null, last_error: null, updated_at: at })
    .where('shop', '=', domain)
    .where('status', '=', 'unbilled')
    // Orders in other currencies are never charged; nor is a charge that may have been on an earlier plan.
    .where('currency', '=', BILLING_CURRENCY)
    .where('sent_at', '>=', period.start)
    .where('sent_at', '<', period.end)
    .where((eb) => eb.or([eb('last_error', 'is', null), eb('last_error', 'not in', MAY_HAVE_BEEN_CHARGED_REASONS)]))
    .returning('order_id')
    .execute();
  return reopened.map((row) => row.order_id);
}

async function chargesIn(db: Db, domain: string, start: Date, end: Date): Promise<UsageChargeRow[]> {
  return db
    .selectFrom('shopify_usage_charges')
    .selectAll()
    .where('shop', '=', domain)
    .where('sent_at', '>=', start)
    .where('sent_at', '<', end)
    .orderBy('sent_at')
    .orderBy('order_id')
    .execute();
}

/**
 * A shop's bill for a month (UTC): totals by outcome and one line per sent video. Reads only, so
 * the CLI can run it without the Shopify module (`npm run cli -- billing shop <shop> <YYYY-MM>`).
 */
export async function shopifyMonthBill(db: Db, shopParam: unknown, month: string): Promise<MonthBill> {
  const domain = parseShopDomain(shopParam);
  const period = statementPeriod(month);
  const charges = await chargesIn(db, domain, period.start, period.end);
  const subscription = await currentSubscription(db, domain);
  // A mistyped shop is not an empty bill (billing probe). A shop erased after uninstalling (shop/redact)
  // has no row but keeps its plans and charges, so those still make it known.
  if (!subscription && charges.length === 0 && !(await findShop(db, domain)))
    throw new NotFoundError(`No shop "${domain}": it never installed Doorstep.`);
  return {
    shop: domain,
    month: period.month,
    subscription_status: subscription?.status ?? 'none',
    ...monthTotals(charges),
    charges: charges.map((charge) => ({
      order_id: charge.order_id,
      status: charge.status,
      price_cents: charge.price_cents,
      amount_cents: charge.amount_cents,
      currency: charge.currency,
      shortfall_cents: charge.shortfall_cents,
      sent_at: formatTimestamp(charge.sent_at),
      usage_record_id: charge.usage_record_id,
      reason: charge.last_error,
    })),
  };
}
