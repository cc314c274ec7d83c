import { z } from 'zod';

/**
 * SHOPIFY_BILLING_* and SHOPIFY_REVENUE_SHARE_BPS, validated once at start (merged into
 * src/config.ts). Shopify shops pay a share of each sent video's price through Shopify's Billing
 * API (docs/shopify.md, "Billing").
 */
export interface ShopifyBillingConfig {
  /** The share of a Shopify shop whose account has none of its own (`accounts.revenue_share_bps`). */
  revenueShareBps: number;
  /** The subscription's capped amount: at most this is charged per 30-day billing cycle. */
  cappedAmountCents: number;
  /** Subscriptions are created with `test: true` (no real charge): on development credentials by default. */
  test: boolean;
}

/** 5 %: the default share of a Shopify shop. */
export const DEFAULT_SHOPIFY_REVENUE_SHARE_BPS = 500;
/** $500.00 per billing cycle. */
export const DEFAULT_SHOPIFY_BILLING_CAP_CENTS = 50_000;

/** Unset or empty → undefined; otherwise digits only (no `5.5`, no `1e3`). */
function wholeNumber(message: string) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value?.trim()) return undefined;
      if (!/^\d{1,12}$/.test(value.trim())) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return Number(value.trim());
    });
}

const billingEnvironment = z.object({
  SHOPIFY_REVENUE_SHARE_BPS: wholeNumber('must be whole basis points from 0 to 10000').pipe(
    z.number().min(0, 'must be whole basis points from 0 to 10000').max(10_000).optional(),
  ),
  // Shopify refuses a zero capped amount; a million dollars is far beyond any sane cap.
  SHOPIFY_BILLING_CAP_CENTS: wholeNumber('must be whole cents, e.g. 50000 for $500.00').pipe(
    z.number().min(1, 'must be at least 1 cent').max(100_000_000).optional(),
  ),
  SHOPIFY_BILLING_TEST: z.enum(['on', 'off', '']).optional(),
});

export class ShopifyBillingConfigError extends Error {
  override name = 'ShopifyBillingConfigError';
}

export function loadShopifyBillingConfig(env: NodeJS.ProcessEnv, development: boolean): ShopifyBillingConfig {
  const parsed = billingEnvironment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ShopifyBillingConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  }
  const value = parsed.data;
  return {
    revenueShareBps: value.SHOPIFY_REVENUE_SHARE_BPS ?? DEFAULT_SHOPIFY_REVENUE_SHARE_BPS,
    cappedAmountCents: value.SHOPIFY_BILLING_CAP_CENTS ?? DEFAULT_SHOPIFY_BILLING_CAP_CENTS,
    // The built-in development credentials are never a real app: their charges are always tests.
    test: development || value.SHOPIFY_BILLING_TEST === 'on',
  };
}
