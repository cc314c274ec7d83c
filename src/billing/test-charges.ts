import type { ShopPlan } from '../shopify/admin-api.ts';

/**
 * Whether a shop's plan is created as a test charge (nothing is billed). Development stores, and the
 * stores Shopify's reviewers and staff use, can only accept test charges: a real one cannot be
 * approved there, and a reviewer who cannot finish the billing flow rejects the app. So they always
 * get test charges, whatever SHOPIFY_BILLING_TEST says; every other shop gets what it says.
 * An unknown plan (Shopify did not answer) falls back to the setting.
 */
export function chargesAreTests(configured: boolean, plan: ShopPlan | null): boolean {
  if (configured) return true;
  if (!plan) return false;
  return plan.partnerDevelopment || TEST_ONLY_PLANS.test(plan.publicDisplayName ?? '');
}

/** Plans Shopify gives to its own staff and to app developers' previews: test charges only. */
const TEST_ONLY_PLANS = /\b(staff|developer preview|development|partner test)\b/i;
