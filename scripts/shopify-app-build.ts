import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BLOCK_ASSET, buildStorefrontBlock } from '../src/shopify/storefront-block/build.ts';
import { cliErrorLines } from './shopify-cli-output.ts';

/**
 * `npm run build:shopify`: the Shopify CLI's `shopify app build` (offline: it bundles the checkout
 * extension and runs theme check on the theme extension), made strict (issue 28):
 *   - without APP_URL it refuses: the checkout extension bakes the server's address in at build
 *     (extensions/record-video-link/src/app-url.ts), and built without it the block shows nothing;
 *   - a storefront block asset that is not the build of its source is refused (npm run build:extensions);
 *   - any `[error]` the CLI prints fails it, theme check's included, although the CLI itself says "built!".
 * CI runs it (.ci/run) with a placeholder APP_URL; a deploy runs it with the real one first.
 */
const root = path.resolve(import.meta.dirname, '..');
const DEADLINE_MS = 240_000;

function fail(message: string): never {
  console.error(`build:shopify: ${message}`);
  process.exit(1);
}

const appUrl = process.env.APP_URL?.trim();
if (!appUrl)
  fail(
    'APP_URL is required: the checkout extension calls the Doorstep server at the address baked in when it is built (extensions/record-video-link/src/app-url.ts). Set APP_URL=https://your-doorstep-server.',
  );
if (!/^https:\/\/[^/\s]+/.test(appUrl)) fail(`APP_URL must be the server's https:// address, not "${appUrl}".`);
if (fs.readFileSync(BLOCK_ASSET, 'utf8') !== buildStorefrontBlock())
  fail('the storefront block asset is not the build of its source: run `npm run build:extensions` and commit it.');

const cli = path.join(root, 'node_modules/@shopify/cli/bin/run.js');
// The CLI needs Node 22+: run it with this Node (the project's), not whatever `node` is on PATH.
const child = spawn(process.execPath, [cli, 'app', 'build', '--path', root], {
  cwd: root,
  env: { ...process.env, APP_URL: appUrl, CI: '1', SHOPIFY_CLI_NO_ANALYTICS: '1' },
  stdio: ['ignore', 'pipe', 'pipe'],
  timeout: DEADLINE_MS,
  killSignal: 'SIGKILL',
});
let output = '';
for (const stream of [child.stdout, child.stderr])
  stream.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    process.stdout.write(chunk);
  });
child.on('close', (code, signal) => {
  if (signal) fail(`shopify app build was stopped (${signal}), after ${DEADLINE_MS / 1000} s at most.`);
  if (code !== 0) fail(`shopify app build exited with ${code}.`);
  const errors = cliErrorLines(output);
  if (errors.length > 0) fail(`shopify app build reported ${errors.length} error(s):\n${errors.join('\n')}`);
  console.log('build:shopify: 0 errors');
});
