import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatMonth,
  formatMoney,
  formatTime,
  uploadedLogoPath,
  numericShopifyId,
  shorten,
  stageTone,
  STAGE_TAB_LABELS,
  videoIdsFromPicker,
} from '../../src/shopify/admin/ui/format.ts';
import { STAGES } from '../../src/shopify/admin/contract.ts';
import { pathOf, routeOf } from '../../src/shopify/admin/ui/routing.ts';

/** The embedded admin's pure pieces (the page runs them in the browser; here in Node). */
describe('formatMonth', () => {
  it('says a billing month in words (storefront probe: "2026-12")', () => {
    expect(formatMonth('2026-12')).toBe('December 2026');
    expect(formatMonth('2027-01')).toBe('January 2027');
    expect(formatMonth('soon')).toBe('soon');
  });
});

describe('the admin’s wording', () => {
  it('money is integer minor units of its currency', () => {
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(1234)).toBe('$12.34');
    expect(formatMoney(500_000)).toBe('$5,000.00');
    // In the order's currency's minor units (probe finding: a EUR order showed "$", ¥1,500 "$1,500.00").
    expect(formatMoney(2000, 'EUR')).toBe('€20.00');
    expect(formatMoney(1500, 'JPY')).toBe('¥1,500');
    expect(formatMoney(1250, 'KWD')).toMatch(/^KWD\s1\.250$/);
    expect(formatMoney(1250, 'NOT A CODE')).toBe('12.50 NOT A CODE');
  });

  it("dates are written in the shop's time zone, named, whatever the browser's", () => {
    const at = '2026-11-27T17:04:15Z';
    expect(formatTime(at, 'America/New_York')).toBe('Nov 27, 2026, 12:04 PM EST');
    expect(formatTime(at, 'Asia/Tokyo')).toBe('Nov 28, 2026, 2:04 AM GMT+9');
    expect(formatTime(at, 'UTC')).toBe('Nov 27, 2026, 5:04 PM UTC');
    expect(formatTime(null, 'UTC')).toBe('—');
  });

  it('a logo Doorstep serves is previewed from its path; any other address is not loaded', () => {
    const sha = 'a'.repeat(64);
    expect(uploadedLogoPath(`https://doorstep.example/brand/acc_1/${sha}.png`)).toBe(`/brand/acc_1/${sha}.png`);
    expect(uploadedLogoPath('https://cdn.example.com/logo.png')).toBeNull();
    expect(uploadedLogoPath(`https://cdn.example.com/brand/acc_1/${sha}.jpg`)).toBeNull();
    expect(uploadedLogoPath('not a url')).toBeNull();
  });

  it('durations read like a person says them', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(59)).toBe('less than a minute');
    expect(formatDuration(60)).toBe('1 min');
    expect(formatDuration(5400)).toBe('1 h 30 min');
    expect(formatDuration(7200)).toBe('2 h');
    expect(formatDuration(86_400 * 2 + 3 * 3600 + 59)).toBe('2 d 3 h');
    expect(formatDuration(86_400)).toBe('1 d');
  });

  it('long reasons are shortened at a word', () => {
    expect(shorten('short', 10)).toBe('short');
    expect(shorten('The mail server refused the message: mailbox full', 20)).toBe('The mail server…');
    expect(shorten('Averyveryverylongwordwithoutspaces', 10)).toBe('Averyvery…');
    expect(shorten('The mail server, refused', 17).length).toBeLessThanOrEqual(17);
  });

  it('every stage has a tab label and a badge colour; trouble is red, done is green', () => {
    for (const stage of STAGES) expect(STAGE_TAB_LABELS[stage]).toMatch(/^[A-Z]/);
    expect(stageTone('needs_attention')).toBe('critical');
    expect(stageTone('sent')).toBe('success');
    expect(stageTone('viewed')).toBe('success');
    expect(stageTone('awaiting_video')).toBe('attention');
  });
});

describe('the resource picker’s answer as settings', () => {
  it('Shopify gids become the numeric ids the settings store', () => {
    expect(numericShopifyId('gid://shopify/Product/8000000001')).toBe('8000000001');
    expect(numericShopifyId('gid://shopify/ProductVariant/42')).toBe('42');
    expect(() => numericShopifyId('8000000001')).toThrow('Not a Shopify id');
    expect(() => numericShopifyId('gid://shopify/Product/abc')).toThrow();
  });

  it('a product picked whole is a product id; a product with only some variants picked gives those variants', () => {
    expect(
      videoIdsFromPicker([
        {
          id: 'gid://shopify/Product/1',
          totalVariants: 2,
          variants: [{ id: 'gid://shopify/ProductVariant/11' }, { id: 'gid://shopify/ProductVariant/12' }],
        },
        { id: 'gid://shopify/Product/2', totalVariants: 3, variants: [{ id: 'gid://shopify/ProductVariant/21' }] },
        // Without totalVariants the picker said nothing of a partial pick: the whole product.
        { id: 'gid://shopify/Product/3', variants: [{ id: 'gid://shopify/ProductVariant/31' }] },
        { id: 'gid://shopify/Product/1', totalVariants: 2, variants: [] },
      ]),
    ).toEqual({ productIds: ['1', '3'], variantIds: ['21'] });
    expect(videoIdsFromPicker([])).toEqual({ productIds: [], variantIds: [] });
  });
});

describe('the admin’s own paths', () => {
  it('map to views and back', () => {
    expect(routeOf('/')).toEqual({ view: 'home' });
    expect(routeOf('/shopify/app')).toEqual({ view: 'home' });
    expect(routeOf('/orders/')).toEqual({ view: 'orders' });
    expect(routeOf('/orders/ord%20x')).toEqual({ view: 'order', id: 'ord x' });
    expect(routeOf('/settings')).toEqual({ view: 'settings' });
    expect(routeOf('/elsewhere')).toEqual({ view: 'not_found' });
    for (const route of [{ view: 'orders' }, { view: 'order', id: 'a/b' }, { view: 'settings' }] as const)
      expect(routeOf(pathOf(route))).toEqual(route);
  });
});
