import fs from 'node:fs';
import path from 'node:path';
import {
  APP_BLOCK_SCRIPT_MAX_BYTES,
  BLOCK_ASSET,
  buildStorefrontBlock,
} from '../src/shopify/storefront-block/build.ts';

/** `npm run build:extensions`: writes the storefront block's minified script into its theme extension. */
const code = buildStorefrontBlock();
const bytes = Buffer.byteLength(code);
if (bytes > APP_BLOCK_SCRIPT_MAX_BYTES) {
  console.error(`The block's script is ${bytes} B minified, over Shopify's ${APP_BLOCK_SCRIPT_MAX_BYTES} B.`);
  process.exit(1);
}
fs.writeFileSync(BLOCK_ASSET, code);
console.log(`${path.relative(process.cwd(), BLOCK_ASSET)}: ${bytes} B`);
