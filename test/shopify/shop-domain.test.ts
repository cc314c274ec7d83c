import { describe, expect, it } from 'vitest';
import { shopDomain } from '../../src/shopify/shops.ts';

/** Issue 31, 8: a shop domain is a host name we call, so its label is a DNS label: at most 63 characters. */
describe('a shop domain', () => {
  it('takes a label of 1 to 63 letters, digits and hyphens', () => {
    expect(shopDomain.parse('a.myshopify.com')).toBe('a.myshopify.com');
    expect(shopDomain.parse(`${'a'.repeat(63)}.myshopify.com`)).toBe(`${'a'.repeat(63)}.myshopify.com`);
    expect(shopDomain.parse(' My-Store.myshopify.com ')).toBe('my-store.myshopify.com');
  });

  it('refuses a label longer than a DNS label may be', () => {
    expect(shopDomain.safeParse(`${'a'.repeat(64)}.myshopify.com`).success).toBe(false);
    expect(shopDomain.safeParse(`${'a'.repeat(300)}.myshopify.com`).success).toBe(false);
  });
});
