import escapeHtml from 'escape-html';
import { sandboxPage, type SandboxAnswer, type SandboxApp } from './http.ts';
import type { ShopifySandboxState } from './state.ts';

const page = (title: string, body: string) => sandboxPage('theme editor', title, body);

/**
 * The sandbox's stand-in for the theme editor opened by the setup guide's deep link
 * (`…/admin/themes/current/editor?template=product&addAppBlockId={extension id}/{handle}&target=mainSection`):
 * it offers to add the block to the product template's main section, and Save writes that into the
 * shop's `templates/product.json`, which the app then reads through `themes.files` as on Shopify.
 */
export function themeEditorPage(handle: string, query: URLSearchParams): SandboxAnswer {
  const adding = query.get('addAppBlockId');
  const body = adding
    ? `<p>The product template of <strong>${escapeHtml(handle)}.myshopify.com</strong>’s theme, with the app block
<code>${escapeHtml(adding)}</code> added to its main section.</p>
<form method="post"><input type="hidden" name="block" value="${escapeHtml(adding)}"><button type="submit">Save</button></form>`
    : `<p>The product template of <strong>${escapeHtml(handle)}.myshopify.com</strong>’s theme. No block is being added.</p>`;
  return { status: 200, html: page('Customize theme', body) };
}

export async function saveThemeEditor(
  state: ShopifySandboxState,
  app: SandboxApp | null,
  handle: string,
  form: URLSearchParams,
): Promise<SandboxAnswer> {
  const [extensionId, blockHandle] = (form.get('block') ?? '').split('/');
  if (!extensionId || !blockHandle) return { status: 400, html: page('Bad request', '<p>No block to add.</p>') };
  const shop = `${handle}.myshopify.com`;
  state.productTemplates.set(
    shop,
    productTemplateWithBlock(`shopify://apps/doorstep/blocks/${blockHandle}/${extensionId}`),
  );
  if (!app) return { status: 200, html: page('Saved', '<p>Saved.</p>') };
  // Back to the app, as a merchant would go next.
  return { status: 302, location: await app.open(shop) };
}

/** A Dawn-like product template, as Shopify stores it (its notice comment included), optionally with an app block. */
export function productTemplateWithBlock(blockType: string | null): string {
  const blocks: Record<string, unknown> = {
    title: { type: 'title' },
    price: { type: 'price' },
    buy_buttons: { type: 'buy_buttons' },
  };
  if (blockType) blocks.app_video = { type: blockType, settings: {} };
  const template = {
    sections: { main: { type: 'main-product', blocks, block_order: Object.keys(blocks) } },
    order: ['main'],
  };
  return `/*\n * ------------------------------------------------------------\n * IMPORTANT: The contents of this file are auto-generated.\n * ------------------------------------------------------------\n */\n${JSON.stringify(template, null, 2)}`;
}
