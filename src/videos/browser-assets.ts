import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { Context } from 'koa';

/**
 * The pages' browser scripts (src/videos/browser/), bundled by esbuild in memory when the page
 * routes are created: no build step to forget and nothing written to disk. A script that does not
 * compile stops the app at start rather than breaking one page later.
 */
export interface BrowserAsset {
  /** `/assets/record-page.<hash>.js`: every build has its own URL, so it can be cached forever. */
  url: string;
  /** Subresource Integrity for the `<script>` tag. */
  integrity: string;
  body: string;
}

const ENTRIES = { record: 'record-page', watch: 'watch-page' } as const;
export type BrowserAssets = Record<keyof typeof ENTRIES, BrowserAsset>;

/** What Shopify storefronts support, and what the scripts' tsconfig checks against. */
const TARGET = 'es2020';

let built: BrowserAssets | undefined;

/** Builds once per process: the sources cannot change under a running app. */
export function browserAssets(): BrowserAssets {
  built ??= {
    record: bundle(ENTRIES.record),
    watch: bundle(ENTRIES.watch),
  };
  return built;
}

function bundle(name: string): BrowserAsset {
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL(`./browser/${name}.ts`, import.meta.url))],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const body = result.outputFiles[0]!.text;
  const digest = createHash('sha256').update(body).digest();
  return {
    url: `/assets/${name}.${digest.toString('hex').slice(0, 16)}.js`,
    integrity: `sha256-${digest.toString('base64')}`,
    body,
  };
}

export function sendAsset(ctx: Context, asset: BrowserAsset): void {
  ctx.status = 200;
  ctx.body = asset.body;
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set({
    // The hash is in the URL: a new build is a new URL, so this one never changes.
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
  });
}
