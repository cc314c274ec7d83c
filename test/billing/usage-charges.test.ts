import { describe, expect, it } from 'vitest';
import { chargeDescription } from '../../src/billing/shopify-billing.ts';
import { loadShopifyBillingConfig } from '../../src/billing/shopify-config.ts';
import {
  billingNotice,
  CAP_EXCEEDED_MESSAGE,
  centsToDecimal,
  chargeOutcome,
  effectiveShareBps,
  formatShare,
  formatUsd,
  initialChargeStatus,
  mayChargeOnPlan,
  monthTotals,
  PLAN_ENDED_AFTER_ATTEMPT_REASON,
  shouldCreateSubscriptionOnOpen,
  subscriptionStatusFromShopify,
  subscriptionTerms,
  unbillableCurrencyReason,
  UNINSTALLED_AFTER_ATTEMPT_REASON,
  usageChargeCents,
} from '../../src/billing/usage-charges.ts';
import { CAP_EXCEEDED } from '../../src/shopify/dev/sandbox/index.ts';
import { needsTokenExchange } from '../../src/shopify/auth/tokens.ts';

describe('the charge of one sent video', () => {
  it('is price × share in whole cents, rounded half up per order; no price is nothing owed', () => {
    expect(usageChargeCents(2000, 500)).toBe(100);
    expect(usageChargeCents(1999, 500)).toBe(100); // 99.95
    expect(usageChargeCents(1989, 500)).toBe(99); // 99.45
    expect(usageChargeCents(10, 500)).toBe(1); // 0.5 rounds up
    expect(usageChargeCents(9, 500)).toBe(0);
    expect(usageChargeCents(null, 500)).toBe(0);
    expect(usageChargeCents(0, 500)).toBe(0);
    expect(() => usageChargeCents(-1, 500)).toThrow(RangeError);
  });

  it("uses the account's own share, else the Shopify default", () => {
    expect(effectiveShareBps(1500, 500)).toBe(1500);
    expect(effectiveShareBps(0, 500)).toBe(0);
    expect(effectiveShareBps(null, 500)).toBe(500);
  });

  it('starts pending when something is owed, and as no_charge (Shopify never called) when not', () => {
    expect(initialChargeStatus(1)).toBe('pending');
    expect(initialChargeStatus(0)).toBe('no_charge');
  });

  it("speaks Shopify's Decimal without floats", () => {
    expect(centsToDecimal(0)).toBe('0.00');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(centsToDecimal(123456)).toBe('1234.56');
    expect(() => centsToDecimal(1.5)).toThrow(RangeError);
    expect(formatUsd(123456789)).toBe('$1,234,567.89');
    expect(formatShare(500)).toBe('5%');
    expect(formatShare(1250)).toBe('12.5%');
    expect(subscriptionTerms(500, 50000)).toBe(
      "5% of each video gift message's price, charged when the video is sent; at most $500.00 per 30-day billing cycle.",
    );
  });

  it('describes the charge with the order id and the math only (no personal data)', () => {
    expect(chargeDescription({ order_id: 'ord_1', price_cents: 2000, revenue_share_bps: 500 })).toBe(
      'Video gift message sent (order ord_1): 5% of $20.00',
    );
  });
});

describe("what Shopify's answer means", () => {
  it('a usage record is recorded; the cap message is over_cap with the whole charge as shortfall; other userErrors are unbilled', () => {
    expect(chargeOutcome({ usageRecordId: 'gid://shopify/AppUsageRecord/1' }, 100)).toEqual({
      status: 'recorded',
      usageRecordId: 'gid://shopify/AppUsageRecord/1',
    });
    expect(chargeOutcome({ userErrors: ['Total price exceeds balance remaining'] }, 250)).toEqual({
      status: 'over_cap',
      shortfallCents: 250,
      reason: 'Total price exceeds balance remaining',
    });
    expect(chargeOutcome({ userErrors: ['The app subscription is not active'] }, 250)).toEqual({
      status: 'unbilled',
      reason: 'The app subscription is not active',
    });
  });

  it("the sandbox's cap message is the one the outcome decision recognises (Shopify's own words)", () => {
    expect(CAP_EXCEEDED).toBe(CAP_EXCEEDED_MESSAGE);
  });

  it("maps Shopify's subscription statuses; ACCEPTED is not yet active", () => {
    expect(subscriptionStatusFromShopify('ACTIVE')).toBe('active');
    expect(subscriptionStatusFromShopify('DECLINED')).toBe('declined');
    expect(subscriptionStatusFromShopify('CANCELLED')).toBe('cancelled');
    expect(subscriptionStatusFromShopify('FROZEN')).toBe('frozen');
    expect(subscriptionStatusFromShopify('EXPIRED')).toBe('expired');
    expect(subscriptionStatusFromShopify('PENDING')).toBe('pending');
    expect(subscriptionStatusFromShopify('ACCEPTED')).toBe('pending');
  });

  it('opening the billing page creates a subscription only for a shop that never had one', () => {
    expect(shouldCreateSubscriptionOnOpen(null)).toBe(true);
    for (const status of ['pending', 'active', 'declined', 'cancelled', 'frozen', 'expired'] as const)
      expect(shouldCreateSubscriptionOnOpen(status), status).toBe(false);
  });
});

describe('the month and the notice', () => {
  const totals = monthTotals([
    { status: 'recorded', amount_cents: 100, shortfall_cents: 0 },
    { status: 'recorded', amount_cents: 50, shortfall_cents: 0 },
    { status: 'pending', amount_cents: 30, shortfall_cents: 0 },
    { status: 'unbilled', amount_cents: 70, shortfall_cents: 0 },
    { status: 'over_cap', amount_cents: 400, shortfall_cents: 400 },
    { status: 'no_charge', amount_cents: 0, shortfall_cents: 0 },
  ]);

  it('sums each kind of charge', () => {
    expect(totals).toEqual({
      videos_charged: 2,
      charged_cents: 150,
      pending_cents: 30,
      unbilled_cents: 70,
      maybe_charged_cents: 0,
      over_cap_cents: 400,
      videos_over_cap: 1,
      other_currency_videos: 0,
    });
  });

  it('keeps a charge that may already be on the Shopify bill apart from the debt, and says so', () => {
    const month = monthTotals([
      {
        status: 'unbilled',
        amount_cents: 70,
        shortfall_cents: 0,
        last_error: 'No active Shopify subscription (none).',
      },
      { status: 'unbilled', amount_cents: 100, shortfall_cents: 0, last_error: PLAN_ENDED_AFTER_ATTEMPT_REASON },
      { status: 'unbilled', amount_cents: 20, shortfall_cents: 0, last_error: UNINSTALLED_AFTER_ATTEMPT_REASON },
    ]);
    expect(month).toMatchObject({ unbilled_cents: 70, maybe_charged_cents: 120 });
    expect(billingNotice({ status: 'cancelled', cappedAmountCents: 1000 }, month)).toBe(
      "Doorstep's plan is cancelled. Video messages are still sent. $0.70 for videos sent this month is not billed yet. $1.20 for videos sent this month may already have been charged by Shopify while Doorstep's plan ended, so it is not charged again. Approve the plan again to be billed through Shopify.",
    );
  });

  it('a charge may go to the plan its earlier attempt went to, and to no other', () => {
    expect(mayChargeOnPlan({ attempts: 0, subscriptionId: null }, 'plan-b')).toBe(true);
    expect(mayChargeOnPlan({ attempts: 2, subscriptionId: 'plan-b' }, 'plan-b')).toBe(true);
    expect(mayChargeOnPlan({ attempts: 2, subscriptionId: 'plan-a' }, 'plan-b')).toBe(false);
  });

  it('counts orders in other currencies apart: their amounts are not USD, never summed, and the notice says why', () => {
    expect(unbillableCurrencyReason(null)).toBeNull();
    expect(unbillableCurrencyReason('USD')).toBeNull();
    expect(unbillableCurrencyReason('CAD')).toBe(
      'The order is in CAD: Doorstep bills through Shopify only orders in USD, so this video is not charged.',
    );
    expect(initialChargeStatus(100, unbillableCurrencyReason('CAD'))).toBe('unbilled');
    const mixed = monthTotals([
      { status: 'unbilled', amount_cents: 70, shortfall_cents: 0, currency: 'USD' },
      { status: 'unbilled', amount_cents: 5000, shortfall_cents: 0, currency: 'JPY' },
      { status: 'unbilled', amount_cents: 90, shortfall_cents: 0, currency: 'EUR' },
    ]);
    expect(mixed).toMatchObject({ unbilled_cents: 70, other_currency_videos: 2 });
    expect(billingNotice({ status: 'active', cappedAmountCents: 1000 }, mixed)).toBe(
      '$0.70 for videos sent this month is not billed yet. 2 videos were sent this month for orders in other currencies than USD: Doorstep bills only USD orders through Shopify, so they are not charged.',
    );
  });

  it('asks for approval, says sending continues and shows the debt, or shows the cap', () => {
    const none = monthTotals([]);
    expect(billingNotice({ status: 'pending', cappedAmountCents: 1000 }, none)).toMatch(/^Approve Doorstep's plan/);
    expect(billingNotice({ status: 'declined', cappedAmountCents: 1000 }, totals)).toBe(
      "You declined Doorstep's plan. Video messages are still sent. $0.70 for videos sent this month is not billed yet. Approve the plan to be billed through Shopify.",
    );
    expect(billingNotice({ status: 'active', cappedAmountCents: 150 }, totals)).toBe(
      'This billing cycle reached your cap of $1.50. Video messages are still sent; $4.00 above the cap was not charged.',
    );
    expect(billingNotice({ status: 'active', cappedAmountCents: 1000 }, none)).toBeNull();
  });

  it('does not say the cap was reached when a charge larger than what was left was refused (billing probe)', () => {
    expect(billingNotice({ status: 'active', cappedAmountCents: 1000 }, totals)).toBe(
      'A charge of $4.00 was larger than what was left of your $10.00 cap this billing cycle, so it was not charged. Video messages are still sent.',
    );
    // $1.60 charged of a $500.00 cap; $50,000.00 and $500.00 refused whole.
    const probe = monthTotals([
      { status: 'recorded', amount_cents: 160, shortfall_cents: 0 },
      { status: 'over_cap', amount_cents: 5_000_000, shortfall_cents: 5_000_000 },
      { status: 'over_cap', amount_cents: 50_000, shortfall_cents: 50_000 },
    ]);
    expect(billingNotice({ status: 'active', cappedAmountCents: 50_000 }, probe)).toBe(
      '2 charges ($50,500.00 in all) were each larger than what was left of your $500.00 cap this billing cycle, so they were not charged. Video messages are still sent.',
    );
  });
});

describe('configuration', () => {
  it('defaults to 5 % and a $500.00 cap; test charges on development credentials or when asked', () => {
    expect(loadShopifyBillingConfig({}, false)).toEqual({
      revenueShareBps: 500,
      cappedAmountCents: 50000,
      test: false,
    });
    expect(loadShopifyBillingConfig({}, true).test).toBe(true);
    expect(loadShopifyBillingConfig({ SHOPIFY_BILLING_TEST: 'on' }, false).test).toBe(true);
    expect(
      loadShopifyBillingConfig({ SHOPIFY_REVENUE_SHARE_BPS: '1250', SHOPIFY_BILLING_CAP_CENTS: '1000' }, false),
    ).toMatchObject({ revenueShareBps: 1250, cappedAmountCents: 1000 });
  });

  it('refuses shares and caps that are not whole, or out of range, naming the variable', () => {
    for (const env of [
      { SHOPIFY_REVENUE_SHARE_BPS: '5.5' },
      { SHOPIFY_REVENUE_SHARE_BPS: '10001' },
      { SHOPIFY_BILLING_CAP_CENTS: '0' },
      { SHOPIFY_BILLING_CAP_CENTS: '-5' },
      { SHOPIFY_BILLING_TEST: 'yes' },
    ])
      expect(() => loadShopifyBillingConfig(env, false), JSON.stringify(env)).toThrow(Object.keys(env)[0]);
  });
});

describe('token care', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const later = (ms: number) => new Date(now.getTime() + ms);
  const shop = {
    active: true,
    access_token: 'shpat_x',
    access_token_expires_at: later(3_600_000),
    refresh_token: 'shprt_x',
    refresh_token_expires_at: later(86_400_000),
  };

  it('only an embedded load (token exchange) helps a shop whose token is due and whose refresh token is gone or expired', () => {
    expect(needsTokenExchange(shop, now)).toBe(false);
    expect(needsTokenExchange({ ...shop, access_token_expires_at: later(60_000) }, now)).toBe(false); // refreshable
    expect(needsTokenExchange({ ...shop, access_token_expires_at: later(60_000), refresh_token: null }, now)).toBe(
      true,
    );
    expect(
      needsTokenExchange({ ...shop, access_token_expires_at: later(-1), refresh_token_expires_at: later(-1) }, now),
    ).toBe(true);
    // A fresh access token is used even when its refresh token has expired.
    expect(needsTokenExchange({ ...shop, refresh_token_expires_at: later(-1) }, now)).toBe(false);
    expect(needsTokenExchange({ ...shop, access_token: null }, now)).toBe(true);
    expect(needsTokenExchange({ ...shop, active: false }, now)).toBe(true);
  });
});
