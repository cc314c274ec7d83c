import { fileURLToPath } from 'node:url';
import { bundleBrowserScript, type BrowserAsset } from '../http/browser-assets.ts';

export type { BrowserAsset } from '../http/browser-assets.ts';
export { sendAsset } from '../http/browser-assets.ts';

/**
 * The record and watch pages' scripts (src/videos/browser/), bundled by esbuild in memory when the
 * page routes are created (src/http/browser-assets.ts).
 */
const ENTRIES = { record: 'record-page', watch: 'watch-page', thanks: 'thanks-reply' } as const;
export type BrowserAssets = Record<keyof typeof ENTRIES, BrowserAsset>;

let built: BrowserAssets | undefined;

/** Builds once per process: the sources cannot change under a running app. */
export function browserAssets(): BrowserAssets {
  built ??= {
    record: bundle(ENTRIES.record),
    watch: bundle(ENTRIES.watch),
    // The watch page's reply recorder, loaded by the watch page only once the reply is invited: the
    // recipient's first view (the gift) parses a few kilobytes, not the uploader's seventy.
    thanks: bundle(ENTRIES.thanks),
  };
  return built;
}

function bundle(name: string): BrowserAsset {
  return bundleBrowserScript(fileURLToPath(new URL(`./browser/${name}.ts`, import.meta.url)), name);
}
