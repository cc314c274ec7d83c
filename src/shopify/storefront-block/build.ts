import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';

/** The block's source: a plain browser script (// @ts-check), readable and commented. */
export const BLOCK_SOURCE = path.join(import.meta.dirname, 'video-gift-message.js');
/** What Shopify serves to every storefront: the source minified (theme extensions deploy assets as they are). */
export const BLOCK_ASSET = path.join(
  import.meta.dirname,
  '../../../extensions/video-gift-message/assets/video-gift-message.js',
);

/**
 * Shopify's theme check refuses an app block script over 10,000 bytes (AssetSizeAppBlockJavaScript,
 * an error in `shopify app build`); the commented source is about twice that. The asset is the
 * minified source, committed (a theme extension has no build step of its own), and a test holds it
 * equal to this build, so the two cannot drift.
 */
export function buildStorefrontBlock(): string {
  const { code } = transformSync(fs.readFileSync(BLOCK_SOURCE, 'utf8'), {
    loader: 'js',
    minify: true,
    target: 'es2020',
    legalComments: 'none',
    banner:
      '/* Doorstep video gift message block. Built from src/shopify/storefront-block/video-gift-message.js by `npm run build:extensions`. */',
  });
  return code;
}

/** Size limit of an app block's JavaScript (theme check's AssetSizeAppBlockJavaScript), in bytes. */
export const APP_BLOCK_SCRIPT_MAX_BYTES = 10_000;
