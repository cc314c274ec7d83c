import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { bundleBrowserScript } from '../../http/browser-assets.ts';
import { DEV_APP_BRIDGE_PATH } from '../admin/page.ts';
import { STANDIN_CONFIG_GLOBAL, type PickerProduct, type StandinConfig } from '../admin/ui/standin-config.ts';

export type { PickerProduct } from '../admin/ui/standin-config.ts';

/**
 * What the development stand-in's resource picker answers: the product and variant ids
 * `npm run cli -- shopify simulate` puts on its orders (src/shopify/dev/webhook-payloads.ts).
 */
export const DEVELOPMENT_PICKER_PRODUCTS: PickerProduct[] = [
  {
    id: 'gid://shopify/Product/8000000001',
    title: 'Video gift message',
    variants: [{ id: 'gid://shopify/ProductVariant/9000000001', title: 'Default Title' }],
  },
];

let bundled: string | undefined;

/**
 * The App Bridge stand-in (admin/ui/app-bridge-standin.ts) configured with a secret and the
 * picker's products, as one script. The secret is in the script: only ever the tests' own or the
 * public development one (admin-page.ts serves it only when `config.shopify.development`).
 */
export function appBridgeStandinScript(config: StandinConfig): string {
  bundled ??= bundleBrowserScript(
    fileURLToPath(new URL('../admin/ui/app-bridge-standin.ts', import.meta.url)),
    'app-bridge-standin',
  ).body;
  return `window.${STANDIN_CONFIG_GLOBAL}=${JSON.stringify(config).replaceAll('<', '\\u003c')};\n${bundled}`;
}

/**
 * Real App Bridge redirects away outside the Shopify admin. With the public development credentials
 * the admin page loads this stand-in instead (admin/page.ts); with real ones this route does not exist.
 */
export function appBridgeStandinRoutes(apiSecret: string): Router {
  const script = appBridgeStandinScript({ apiSecret, products: DEVELOPMENT_PICKER_PRODUCTS });
  const router = new Router();
  router.get(DEV_APP_BRIDGE_PATH, (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    ctx.body = script;
  });
  return router;
}
