import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import type { Context } from 'koa';

/**
 * Browser assets (the pages' scripts, the embedded admin's bundle and stylesheet), built in memory
 * when the routes that serve them are created: no build step to forget and nothing written to
 * disk. A script that does not compile stops the app at start rather than breaking one page later.
 */
export interface BrowserAsset {
  /** `/assets/record-page.<hash>.js`: every build has its own URL, so it can be cached forever. */
  url: string;
  /** Subresource Integrity for the `<script>` or `<link>` tag. */
  integrity: string;
  contentType: string;
  body: string;
}

/** What Shopify storefronts and the admin support, and what the scripts' tsconfigs check against. */
const TARGET = 'es2020';

/** Bundles one entry file (TypeScript, or TSX with React's automatic runtime) into one script. */
export function bundleBrowserScript(entryFile: string, name: string): BrowserAsset {
  const result = buildSync({
    entryPoints: [entryFile],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    jsx: 'automatic',
    // React picks its production build by this; the browser has no `process`.
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  return asset(name, 'js', 'text/javascript; charset=utf-8', result.outputFiles[0]!.text);
}

/** A stylesheet served as it is in its package (e.g. Polaris's), from our origin, never a CDN. */
export function stylesheetAsset(file: string, name: string): BrowserAsset {
  return asset(name, 'css', 'text/css; charset=utf-8', fs.readFileSync(file, 'utf8'));
}

/** A script served as it is in its package (e.g. Swagger UI's bundle), from our origin, never a CDN. */
export function scriptFileAsset(file: string, name: string): BrowserAsset {
  return asset(name, 'js', 'text/javascript; charset=utf-8', fs.readFileSync(file, 'utf8'));
}

function asset(name: string, extension: string, contentType: string, body: string): BrowserAsset {
  const digest = createHash('sha256').update(body).digest();
  return {
    url: `/assets/${name}.${digest.toString('hex').slice(0, 16)}.${extension}`,
    integrity: `sha256-${digest.toString('base64')}`,
    contentType,
    body,
  };
}

export function sendAsset(ctx: Context, asset: BrowserAsset): void {
  ctx.status = 200;
  ctx.type = asset.contentType;
  ctx.set({
    // The hash is in the URL: a new build is a new URL, so this one never changes.
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  });
  // The embedded admin's script and Polaris's stylesheet are ~500 KB each: sent as they are, every cold
  // load of the admin moved ~1 MB (merchant probe, against the App Store's "loads fast"). Each asset is
  // compressed once, when first asked for in that coding, and kept.
  const coding = ctx.acceptsEncodings('br', 'gzip', 'identity');
  if (coding === 'br' || coding === 'gzip') {
    ctx.set('Content-Encoding', coding);
    ctx.body = compressedOnce(asset, coding);
    return;
  }
  ctx.body = asset.body;
}

const compressed = new WeakMap<BrowserAsset, Partial<Record<'br' | 'gzip', Buffer>>>();

function compressedOnce(asset: BrowserAsset, coding: 'br' | 'gzip'): Buffer {
  const kept = compressed.get(asset) ?? {};
  const bytes =
    kept[coding] ??
    (coding === 'br'
      ? // Quality 5: most of brotli's gain for a fraction of its time at 11 (this runs in a request).
        brotliCompressSync(asset.body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
      : gzipSync(asset.body, { level: 9 }));
  compressed.set(asset, { ...kept, [coding]: bytes });
  return bytes;
}
