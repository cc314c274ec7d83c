import { describe, expect, it } from 'vitest';
import { productTemplateWithBlock } from '../../src/shopify/dev/sandbox/theme-editor.ts';
import { setupSteps } from '../../src/shopify/admin/setup/steps.ts';
import { appBlockActive, themeEditorLink } from '../../src/shopify/admin/setup/theme-block.ts';

describe('appBlockActive', () => {
  const ours = 'shopify://apps/doorstep/blocks/video-gift-message/0a1b2c3d';
  it('finds our block in a JSON template, past Shopify’s notice comment', () => {
    expect(appBlockActive(productTemplateWithBlock(ours))).toBe(true);
    expect(appBlockActive(productTemplateWithBlock(null))).toBe(false);
  });

  it('ignores a disabled block or section, another app’s block, and what is not a template', () => {
    const template = (block: Record<string, unknown>, section: Record<string, unknown> = {}) =>
      JSON.stringify({ sections: { main: { type: 'main-product', blocks: { a: block }, ...section } } });
    expect(appBlockActive(template({ type: ours }))).toBe(true);
    expect(appBlockActive(template({ type: ours, disabled: true }))).toBe(false);
    expect(appBlockActive(template({ type: ours }, { disabled: true }))).toBe(false);
    expect(appBlockActive(template({ type: 'shopify://apps/other/blocks/reviews/123' }))).toBe(false);
    expect(appBlockActive('{% schema %}')).toBe(false);
    expect(appBlockActive('null')).toBe(false);
  });
});

describe('themeEditorLink', () => {
  it('opens the product template with the block being added, or just the template without the extension id', () => {
    expect(themeEditorLink('https://s.myshopify.com/admin', 'ext-1')).toBe(
      'https://s.myshopify.com/admin/themes/current/editor?template=product&addAppBlockId=ext-1%2Fvideo-gift-message&target=mainSection',
    );
    expect(themeEditorLink('https://s.myshopify.com/admin/', null)).toBe(
      'https://s.myshopify.com/admin/themes/current/editor?template=product',
    );
  });
});

describe('setupSteps', () => {
  const state = {
    themeBlock: 'missing' as const,
    themeEditorUrl: 'https://x',
    productChosen: false,
    planActive: false,
    testGiftSent: false,
  };
  it('counts what is true of the shop', () => {
    expect(setupSteps(state).completed).toBe(0);
    const all = setupSteps({
      ...state,
      themeBlock: 'active',
      productChosen: true,
      planActive: true,
      testGiftSent: true,
    });
    expect(all.completed).toBe(4);
    expect(all.steps.every((step) => step.done)).toBe(true);
  });

  it('says when the theme could not be read, and leaves the step open', () => {
    const unknown = setupSteps({ ...state, themeBlock: 'unknown' }).steps[0]!;
    expect(unknown.done).toBe(false);
    expect(unknown.description).toContain('could not read your theme');
  });
});
