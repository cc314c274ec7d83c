import { fileURLToPath } from 'node:url';
import { bundleBrowserScript } from '../http/browser-assets.ts';
import { STANDIN_CONFIG_GLOBAL, type PickerProduct, type StandinConfig } from './admin-ui/standin-config.ts';

export type { PickerProduct } from './admin-ui/standin-config.ts';

/** Where Shopify requires embedded apps to load App Bridge from (always this URL, never a copy). */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/** Where the app serves the stand-in in local development (public development credentials only). */
export const DEV_APP_BRIDGE_PATH = '/dev/app-bridge.js';

/**
 * What the development stand-in's resource picker answers: the product and variant ids
 * `npm run cli -- shopify simulate` puts on its orders (src/shopify/dev-payloads.ts).
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
 * The App Bridge stand-in (admin-ui/app-bridge-standin.ts) configured with a secret and the
 * picker's products, as one script. The secret is in the script: only ever the tests' own or the
 * public development one (admin-page.ts serves it only when `config.shopify.development`).
 */
export function appBridgeStandinScript(config: StandinConfig): string {
  bundled ??= bundleBrowserScript(
    fileURLToPath(new URL('./admin-ui/app-bridge-standin.ts', import.meta.url)),
    'app-bridge-standin',
  ).body;
  return `window.${STANDIN_CONFIG_GLOBAL}=${JSON.stringify(config).replaceAll('<', '\\u003c')};\n${bundled}`;
}
