/**
 * The storefront block on the product page (setup step 1), read from the theme's JSON template as
 * Shopify documents for app blocks: a block whose `type` is
 * `shopify://apps/{app}/blocks/{block handle}/{extension id}` in one of the template's sections, and
 * not `disabled`. Pure: the template's text in, the answer out.
 */
const BLOCK_HANDLE = 'video-gift-message';

export function appBlockActive(templateText: string, blockHandle: string = BLOCK_HANDLE): boolean {
  let template: unknown;
  try {
    // Shopify writes a `/* … */` notice at the top of the theme's JSON templates.
    template = JSON.parse(templateText.replace(/^\s*\/\*[\s\S]*?\*\//, ''));
  } catch {
    return false;
  }
  const sections = (template as { sections?: Record<string, unknown> } | null)?.sections;
  if (!sections || typeof sections !== 'object') return false;
  const ours = new RegExp(`^shopify://apps/[^/]+/blocks/${blockHandle}/[^/]+$`);
  return Object.values(sections).some((section) => {
    if ((section as { disabled?: unknown })?.disabled === true) return false;
    const blocks = (section as { blocks?: Record<string, unknown> } | null)?.blocks;
    if (!blocks || typeof blocks !== 'object') return false;
    return Object.values(blocks).some((block) => {
      const { type, disabled } = (block ?? {}) as { type?: unknown; disabled?: unknown };
      return typeof type === 'string' && ours.test(type) && disabled !== true;
    });
  });
}

/**
 * The theme editor, opened on the product template with our block being added to its main section
 * (Shopify's app block deep link). `adminBase` is `https://{shop}/admin`, or the development
 * sandbox's stand-in for it.
 */
export function themeEditorLink(
  adminBase: string,
  extensionId: string | null,
  blockHandle: string = BLOCK_HANDLE,
): string {
  const query = new URLSearchParams({ template: 'product' });
  // Without the extension's id the editor still opens on the product template; the block is added by hand.
  if (extensionId) {
    query.set('addAppBlockId', `${extensionId}/${blockHandle}`);
    query.set('target', 'mainSection');
  }
  return `${adminBase.replace(/\/+$/, '')}/themes/current/editor?${query}`;
}
