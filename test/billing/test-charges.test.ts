import { describe, expect, it } from 'vitest';
import { chargesAreTests } from '../../src/billing/test-charges.ts';

describe('chargesAreTests', () => {
  const plan = (partnerDevelopment: boolean, publicDisplayName: string | null) => ({
    partnerDevelopment,
    publicDisplayName,
  });

  it('is true for development, staff and developer-preview stores, and whenever the setting says so', () => {
    expect(chargesAreTests(false, plan(true, 'Basic'))).toBe(true);
    expect(chargesAreTests(false, plan(false, 'Staff'))).toBe(true);
    expect(chargesAreTests(false, plan(false, 'Developer Preview'))).toBe(true);
    expect(chargesAreTests(true, plan(false, 'Shopify Plus'))).toBe(true);
    expect(chargesAreTests(true, null)).toBe(true);
  });

  it('is false for a paying shop, and when Shopify did not say (the setting decides)', () => {
    expect(chargesAreTests(false, plan(false, 'Basic'))).toBe(false);
    expect(chargesAreTests(false, plan(false, 'Shopify Plus'))).toBe(false);
    expect(chargesAreTests(false, plan(false, null))).toBe(false);
    expect(chargesAreTests(false, null)).toBe(false);
  });
});
