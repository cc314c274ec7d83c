import type { ShopifySubscriptionStatus, UsageChargeStatus } from '../vocabulary.ts';
import { revenueShareCents } from './statements.ts';

/**
 * The pure decisions of Shopify billing: what a sent video costs, what Shopify's answer means, and
 * the words the merchant reads. No I/O here (unit-tested in test/billing/usage-charges.test.ts).
 */

/** Shopify usage charges are in the subscription's currency; Doorstep subscribes in USD. */
export const BILLING_CURRENCY = 'USD';

/**
 * The charge of one sent video: its price × the share, in whole cents, rounded half up. Each video
 * is its own Shopify usage record, so it rounds per order (the API statements round once per month).
 * No price → nothing owed.
 */
export function usageChargeCents(priceCents: number | null, shareBps: number): number {
  if (priceCents === null) return 0;
  return revenueShareCents(priceCents, shareBps);
}

/** The share that applies: the account's own, else the default for Shopify shops. */
export function effectiveShareBps(accountShareBps: number | null, defaultShareBps: number): number {
  return accountShareBps ?? defaultShareBps;
}

/**
 * Why an order in another currency is not charged, or null when it may be. The price is in the
 * order currency's minor units, while the plan charges USD: charging it as USD cents would
 * overcharge (or undercharge) by the exchange rate, so only USD orders are billed through Shopify.
 * Null currency (an order made through the API, or a Shopify order linked before currencies were
 * kept) is taken as USD, as the API's prices are.
 */
export function unbillableCurrencyReason(orderCurrency: string | null): string | null {
  if (orderCurrency === null || orderCurrency === BILLING_CURRENCY) return null;
  return `The order is in ${orderCurrency}: Doorstep bills through Shopify only orders in ${BILLING_CURRENCY}, so this video is not charged.`;
}

/**
 * The status a new charge starts in: zero is recorded as nothing owed, and Shopify is never
 * called; an order in another currency is unbilled (never re-opened: `unbillableCurrencyReason`).
 */
export function initialChargeStatus(amountCents: number, currencyReason: string | null = null): UsageChargeStatus {
  if (currencyReason !== null) return 'unbilled';
  return amountCents > 0 ? 'pending' : 'no_charge';
}

/** Integer cents → Shopify's Decimal string (`1234` → `"12.34"`), never through a float. */
export function centsToDecimal(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError('cents must be a whole amount');
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** `$12.34` */
export function formatUsd(cents: number): string {
  const decimal = centsToDecimal(cents);
  const [whole, fraction] = decimal.split('.');
  return `$${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

/** `500` → `5%`, `1250` → `12.5%` */
export function formatShare(bps: number): string {
  return `${(bps / 100).toFixed(2).replace(/\.?0+$/, '')}%`;
}

/** The subscription's terms, shown by Shopify on the approval page. */
export function subscriptionTerms(shareBps: number, cappedAmountCents: number): string {
  return `${formatShare(shareBps)} of each video gift message's price, charged when the video is sent; at most ${formatUsd(cappedAmountCents)} per 30-day billing cycle.`;
}

/** Shopify's AppSubscriptionStatus → ours. ACCEPTED (deprecated) is approved but not yet active. */
export function subscriptionStatusFromShopify(status: string): ShopifySubscriptionStatus {
  switch (status.toUpperCase()) {
    case 'ACTIVE':
      return 'active';
    case 'DECLINED':
      return 'declined';
    case 'CANCELLED':
      return 'cancelled';
    case 'FROZEN':
      return 'frozen';
    case 'EXPIRED':
      return 'expired';
    default:
      return 'pending';
  }
}

/** Opening the billing page creates a subscription only when the shop has never had one. */
export function shouldCreateSubscriptionOnOpen(latest: ShopifySubscriptionStatus | null): boolean {
  return latest === null;
}

/**
 * What Shopify said about `appUsageRecordCreate`: a usage record, or userErrors. Transport failures
 * (network, 5xx, throttling, no token) are thrown instead and retried by the queue.
 */
export type UsageRecordAnswer = { usageRecordId: string } | { userErrors: string[] };

export type ChargeOutcome =
  | { status: 'recorded'; usageRecordId: string }
  | { status: 'over_cap'; shortfallCents: number; reason: string }
  | { status: 'unbilled'; reason: string };

/** Why a charge of an uninstalled shop is not billed: it never reached Shopify, so a plan approved later this month may bill it. */
export const UNINSTALLED_REASON = 'The shop has uninstalled Doorstep.';

/**
 * Why a charge of an uninstalled shop is never billed: an earlier attempt failed in a way that may
 * have reached Shopify (a timeout, a 5xx after the record was made). Charging it again under a
 * new plan could bill the merchant twice (the idempotency key is not known to reach across
 * plans), so a later approval does not re-open it.
 */
export const UNINSTALLED_AFTER_ATTEMPT_REASON =
  'The shop uninstalled Doorstep while this charge was being sent to Shopify; it may have been charged then, so it is not charged again.';

/**
 * Why a charge is never billed after its plan ended or was replaced: an earlier attempt failed in a
 * way that may have reached Shopify on that plan. Shopify answers a repeated idempotency key with
 * its record, but is not known to do so across plans, so charging it on another plan could bill the
 * merchant twice (billing probe): a later approval does not re-open it.
 */
export const PLAN_ENDED_AFTER_ATTEMPT_REASON =
  "Doorstep's plan ended while this charge was being sent to Shopify; it may have been charged then, so it is not charged again.";

/** The reasons of unbilled charges that may already be on the merchant's Shopify bill: never re-opened, not a debt. */
export const MAY_HAVE_BEEN_CHARGED_REASONS: readonly string[] = [
  UNINSTALLED_AFTER_ATTEMPT_REASON,
  PLAN_ENDED_AFTER_ATTEMPT_REASON,
];

/**
 * Whether a pending charge may still be sent to `planId`: yes unless an earlier attempt, which may
 * have reached Shopify, went to another plan (see PLAN_ENDED_AFTER_ATTEMPT_REASON). A charge tried
 * before the plan was kept with it (`subscriptionId` null) is taken as tried on the current plan.
 */
export function mayChargeOnPlan(charge: { attempts: number; subscriptionId: string | null }, planId: string): boolean {
  return charge.attempts === 0 || charge.subscriptionId === null || charge.subscriptionId === planId;
}

/** Shopify's words when a charge would take the cycle past the capped amount (appUsageRecordCreate docs). */
export const CAP_EXCEEDED_MESSAGE = 'Total price exceeds balance remaining';

/**
 * What a usage record answer means for a charge of `amountCents`. Over the cap the whole charge is
 * the shortfall (Shopify takes a record whole or not at all). Any other userError (the
 * subscription is no longer active, the line item is gone) leaves the charge unbilled with its
 * reason: a debt shown to the merchant, not retried for ever.
 */
export function chargeOutcome(answer: UsageRecordAnswer, amountCents: number): ChargeOutcome {
  if ('usageRecordId' in answer) return { status: 'recorded', usageRecordId: answer.usageRecordId };
  const reason = answer.userErrors.join('; ') || 'Shopify refused the usage charge';
  if (answer.userErrors.some((message) => message.toLowerCase().includes(CAP_EXCEEDED_MESSAGE.toLowerCase())))
    return { status: 'over_cap', shortfallCents: amountCents, reason };
  return { status: 'unbilled', reason };
}

/** What the billing page sums for one month of one shop. */
export interface MonthTotals {
  videos_charged: number;
  charged_cents: number;
  pending_cents: number;
  /** Not billed yet: a plan approved this month charges it. */
  unbilled_cents: number;
  /** Not charged by Doorstep after an attempt that may have reached Shopify (MAY_HAVE_BEEN_CHARGED_REASONS): never charged again. */
  maybe_charged_cents: number;
  over_cap_cents: number;
  /** Videos refused whole by Shopify's cap (their amounts are over_cap_cents). */
  videos_over_cap: number;
  /** Videos of orders in other currencies than USD: not billed (their amounts are not USD, so not in the sums). */
  other_currency_videos: number;
}

export function monthTotals(
  charges: ReadonlyArray<{
    status: UsageChargeStatus;
    amount_cents: number;
    shortfall_cents: number;
    /** Absent: USD. */
    currency?: string;
    last_error?: string | null;
  }>,
): MonthTotals {
  const totals: MonthTotals = {
    videos_charged: 0,
    charged_cents: 0,
    pending_cents: 0,
    unbilled_cents: 0,
    maybe_charged_cents: 0,
    over_cap_cents: 0,
    videos_over_cap: 0,
    other_currency_videos: 0,
  };
  for (const charge of charges) {
    if ((charge.currency ?? BILLING_CURRENCY) !== BILLING_CURRENCY) totals.other_currency_videos++;
    else if (charge.status === 'recorded') {
      totals.videos_charged++;
      totals.charged_cents += charge.amount_cents;
    } else if (charge.status === 'pending') totals.pending_cents += charge.amount_cents;
    else if (charge.status === 'unbilled' && MAY_HAVE_BEEN_CHARGED_REASONS.includes(charge.last_error ?? ''))
      totals.maybe_charged_cents += charge.amount_cents;
    else if (charge.status === 'unbilled') totals.unbilled_cents += charge.amount_cents;
    else if (charge.status === 'over_cap') {
      totals.videos_over_cap++;
      totals.over_cap_cents += charge.shortfall_cents;
    }
  }
  return totals;
}

/**
 * The words the merchant reads on the billing page when something needs them, or null. The most
 * pressing first: no approved plan (sending continues, debt shown), then the cap.
 */
export function billingNotice(
  subscription: { status: ShopifySubscriptionStatus | 'none'; cappedAmountCents: number },
  totals: MonthTotals,
): string | null {
  const otherCurrencies =
    totals.other_currency_videos > 0
      ? ` ${totals.other_currency_videos === 1 ? '1 video was' : `${totals.other_currency_videos} videos were`} sent this month for orders in other currencies than ${BILLING_CURRENCY}: Doorstep bills only ${BILLING_CURRENCY} orders through Shopify, so ${totals.other_currency_videos === 1 ? 'it is' : 'they are'} not charged.`
      : '';
  const maybeCharged =
    totals.maybe_charged_cents > 0
      ? ` ${formatUsd(totals.maybe_charged_cents)} for videos sent this month may already have been charged by Shopify while Doorstep's plan ended, so it is not charged again.`
      : '';
  const debt =
    (totals.unbilled_cents > 0
      ? ` ${formatUsd(totals.unbilled_cents)} for videos sent this month is not billed yet.`
      : '') +
    maybeCharged +
    otherCurrencies;
  switch (subscription.status) {
    case 'none':
    case 'pending':
      return `Approve Doorstep's plan in Shopify so sent videos can be billed. Video messages are sent in the meantime.${debt}`;
    case 'declined':
      return `You declined Doorstep's plan. Video messages are still sent.${debt} Approve the plan to be billed through Shopify.`;
    case 'cancelled':
    case 'expired':
      return `Doorstep's plan is ${subscription.status}. Video messages are still sent.${debt} Approve the plan again to be billed through Shopify.`;
    case 'frozen':
      return `Shopify froze Doorstep's plan (the store's own Shopify bill is unpaid). Video messages are still sent.${debt}`;
    case 'active':
      if (totals.over_cap_cents > 0)
        return `${capNotice(subscription.cappedAmountCents, totals)}${maybeCharged}${otherCurrencies}`;
      return debt ? debt.trim() : null;
  }
}

/**
 * What the cap kept from being charged. Shopify refuses a usage record whole when it would take the
 * cycle past the cap, so one large charge can be refused while most of the cap is unused: "reached"
 * only when the charges this month did reach it, else the refused charge is said to be larger than
 * what was left (billing probe: "reached your cap of $500.00" after $1.60).
 */
function capNotice(cappedAmountCents: number, totals: MonthTotals): string {
  const cap = formatUsd(cappedAmountCents);
  const refused = formatUsd(totals.over_cap_cents);
  if (totals.charged_cents >= cappedAmountCents)
    return `This billing cycle reached your cap of ${cap}. Video messages are still sent; ${refused} above the cap was not charged.`;
  const charges =
    totals.videos_over_cap === 1
      ? `A charge of ${refused} was larger than what was left of your ${cap} cap this billing cycle, so it was not charged.`
      : `${totals.videos_over_cap} charges (${refused} in all) were each larger than what was left of your ${cap} cap this billing cycle, so they were not charged.`;
  return `${charges} Video messages are still sent.`;
}

/** `YYYY-MM` of a UTC instant. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}
