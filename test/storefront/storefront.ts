import fs from 'node:fs';
import path from 'node:path';
import { Liquid, Tag, TagToken, type TopLevelToken } from 'liquidjs';
import type { Page, Request } from 'playwright-core';

/**
 * A storefront for the theme app extension's tests: the app block's real Liquid rendered by liquidjs
 * into a small theme page, served with the extension's real assets through Playwright's routing.
 * Nothing goes to the network: every request to the shop's origin is answered here and every other
 * one is refused.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const EXTENSION_DIR = path.join(ROOT, 'extensions/video-gift-message');
export const BLOCK_FILE = path.join(EXTENSION_DIR, 'blocks/video-gift-message.liquid');
const FIXTURES = path.join(ROOT, 'test/fixtures/storefront');

/** Never reached: page.route answers for it. */
export const SHOP_ORIGIN = 'https://doorstep-gifts.example';
export const SECTION_ID = 'template--22104__main';
/** Where the pages load the extension's assets from (Shopify serves them from its CDN). */
const ASSET_PATH = '/extension-assets/';

export const fixture = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as T;

export interface BlockSchema {
  name: string;
  target: string;
  javascript?: string;
  stylesheet?: string;
  enabled_on?: { templates?: string[]; groups?: string[] };
  settings: Array<{ type: string; id?: string; label?: string; default?: unknown; content?: string }>;
}

/** The JSON inside the block's `{% schema %}` tag. */
export function blockSchema(liquid = fs.readFileSync(BLOCK_FILE, 'utf8')): BlockSchema {
  const match = /\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/.exec(liquid);
  if (!match) throw new Error('the block has no {% schema %} tag');
  return JSON.parse(match[1]!) as BlockSchema;
}

/** The extension's storefront translations (locales/en.default.json). */
export const locales = (): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(EXTENSION_DIR, 'locales/en.default.json'), 'utf8')) as Record<string, unknown>;

/**
 * Test shims for the Shopify-only Liquid the block uses, and nothing more (strictFilters makes any
 * other Shopify filter fail the render, so the block cannot quietly depend on one these tests skip):
 * - `{% schema %}` renders nothing, as on Shopify;
 * - `t` looks the key up in the extension's locales/en.default.json;
 * - `json` is Shopify's: JSON with `<`, `>` and `&` written as \u escapes (Rails' HTML-safe JSON),
 *   which is what keeps a product title such as `</script>` inside the block's JSON script;
 * - `money` formats a price in cents with the shop's money format, here a US store's `${{amount}}`.
 */
export function shopifyLiquid(): Liquid {
  const engine = new Liquid({ strictFilters: true, root: [FIXTURES] });
  const translations = locales();
  class SchemaTag extends Tag {
    constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
      super(token, remainTokens, liquid);
      while (remainTokens.length > 0) {
        const next = remainTokens.shift();
        if (next instanceof TagToken && next.name === 'endschema') return;
      }
      throw new Error('{% schema %} is not closed');
    }
    *render(): Generator<unknown, void, unknown> {}
  }
  engine.registerTag('schema', SchemaTag);
  engine.registerFilter('t', (key: string) => {
    const text = key
      .split('.')
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], translations);
    if (typeof text !== 'string') throw new Error(`no translation for ${key}`);
    return text;
  });
  engine.registerFilter('json', (value: unknown) =>
    JSON.stringify(value ?? null)
      .replaceAll('<', '\\u003c')
      .replaceAll('>', '\\u003e')
      .replaceAll('&', '\\u0026'),
  );
  engine.registerFilter('money', (cents: unknown) => {
    // Shopify's prices are integers in the currency's minor unit; anything else is a wrong Liquid path.
    if (!Number.isInteger(cents)) throw new Error(`money: ${JSON.stringify(cents)} is not a price in cents`);
    return `$${((cents as number) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  });
  return engine;
}

export interface Product {
  id: number;
  title: string;
  handle: string;
  selected_or_first_available_variant: { id: number; price: number };
}

export interface Cart {
  item_count: number;
  items: Array<{ key: string; title: string; quantity: number; properties: Record<string, string> }>;
}

/** What Shopify injects for the schema's `javascript` and `stylesheet` keys. */
function blockAssetTags(schema: BlockSchema): string {
  return [
    schema.stylesheet && `<link rel="stylesheet" href="${ASSET_PATH}${schema.stylesheet}">`,
    schema.javascript && `<script src="${ASSET_PATH}${schema.javascript}" defer></script>`,
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The block's settings as the theme editor stores them: the schema's defaults, the add-on product,
 * and what the merchant changed (a text cleared is stored as empty).
 */
function blockSettings(
  schema: BlockSchema,
  videoProduct: Product | null,
  changed: Record<string, unknown> = {},
): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const setting of schema.settings) if (setting.id && 'default' in setting) settings[setting.id] = setting.default;
  if (videoProduct) settings.video_product = videoProduct;
  return { ...settings, ...changed };
}

export type ThemePage = 'dawn-product-page' | 'classic-product-page' | 'cart-page';

/** A whole page of the given theme fixture with the app block rendered into it. */
export async function renderStorefrontPage(
  themePage: ThemePage,
  options: { product?: Product; cart: Cart; videoProduct: Product | null; settings?: Record<string, unknown> },
): Promise<string> {
  const engine = shopifyLiquid();
  const liquid = fs.readFileSync(BLOCK_FILE, 'utf8');
  const schema = blockSchema(liquid);
  const globals = {
    template: { name: themePage === 'cart-page' ? 'cart' : 'product' },
    product: themePage === 'cart-page' ? undefined : options.product,
    cart: options.cart,
    section: { id: SECTION_ID },
    routes: { cart_add_url: '/cart/add', cart_change_url: '/cart/change', cart_url: '/cart' },
  };
  const appBlock = await engine.parseAndRender(liquid, {
    ...globals,
    block: {
      id: 'AbCd123',
      shopify_attributes: '',
      settings: blockSettings(schema, options.videoProduct, options.settings),
    },
  });
  return engine.renderFile(`${themePage}.liquid`, {
    ...globals,
    app_block: appBlock,
    app_block_assets: blockAssetTags(schema),
  });
}

export interface CartRequest {
  path: string;
  /** JSON bodies parsed; form bodies (multipart or urlencoded) as their [name, value] pairs, sorted. */
  body: unknown;
}

/** How the fake cart answers a request; by default 200 with a JSON echo. */
export type CartAnswer = (request: CartRequest) => { status: number; json: unknown } | undefined;

export interface Storefront {
  /** Every request of the page (its method and URL), in the order the browser sent them. */
  requests: string[];
  /** Every POST to /cart/…, in the order the browser sent them. */
  cartRequests: CartRequest[];
  /** How often the storefront page itself was loaded (a reload counts). */
  pageLoads: () => number;
  /** Script errors and console errors of the page; a clean run has none. */
  problems: string[];
}

async function readCartRequest(request: Request): Promise<CartRequest> {
  const url = new URL(request.url());
  const type = request.headers()['content-type'] ?? '';
  const raw = request.postDataBuffer() ?? Buffer.alloc(0);
  let body: unknown;
  if (type.startsWith('application/json')) body = JSON.parse(raw.toString('utf8'));
  else if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    body = [...form.entries()].map(([name, value]) => [name, String(value)]).sort(byPair);
  } else body = [...new URLSearchParams(raw.toString('utf8'))].sort(byPair);
  return { path: url.pathname, body };
}

const byPair = (a: string[], b: string[]) => (a.join('\0') < b.join('\0') ? -1 : 1);

/** Opens `html` at `pagePath` of the shop, with the extension's assets and a fake cart API behind it. */
export async function openStorefront(
  page: Page,
  pagePath: string,
  html: string,
  answer: CartAnswer = () => undefined,
): Promise<Storefront> {
  const requests: string[] = [];
  const cartRequests: CartRequest[] = [];
  const problems: string[] = [];
  let pageLoads = 0;
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.route('**/*', async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    requests.push(`${request.method()} ${request.url()}`);
    if (url.origin !== SHOP_ORIGIN) return route.abort();
    if (request.method() === 'GET' && url.pathname === pagePath) {
      pageLoads += 1;
      return route.fulfill({ contentType: 'text/html; charset=utf-8', body: html });
    }
    if (request.method() === 'GET' && url.pathname.startsWith(ASSET_PATH)) {
      const file = path.join(EXTENSION_DIR, 'assets', path.basename(url.pathname));
      if (!fs.existsSync(file)) return route.fulfill({ status: 404, body: 'no such asset' });
      const contentType = file.endsWith('.js') ? 'text/javascript' : 'text/css';
      return route.fulfill({ contentType, body: fs.readFileSync(file) });
    }
    if (request.method() === 'POST' && url.pathname.startsWith('/cart/')) {
      const cartRequest = await readCartRequest(request);
      cartRequests.push(cartRequest);
      // A theme without script posts the form and the browser shows the cart it is sent to.
      if (request.isNavigationRequest()) {
        return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Cart</title><h1>Cart</h1>' });
      }
      const { status, json } = answer(cartRequest) ?? { status: 200, json: cartRequest.body };
      return route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(json) });
    }
    return route.fulfill({ status: 404, body: 'not found' });
  });
  await page.goto(`${SHOP_ORIGIN}${pagePath}`);
  return { requests, cartRequests, pageLoads: () => pageLoads, problems };
}
