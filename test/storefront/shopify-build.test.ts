import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { cliErrorLines } from '../../scripts/shopify-cli-output.ts';

/**
 * Issue 28: `npm run build:shopify` (scripts/shopify-app-build.ts) refuses to build the app without
 * APP_URL, which the checkout extension bakes in. The build itself (`shopify app build`, with 0
 * errors) is a step of .ci/run.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const run = (env: Record<string, string | undefined>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/shopify-app-build.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

it('fails without APP_URL, or with one that is not https, saying why', () => {
  const missing = run({ APP_URL: '' });
  expect(missing.status).toBe(1);
  expect(missing.stderr).toContain('APP_URL is required');
  const plain = run({ APP_URL: 'http://localhost:3000' });
  expect(plain.status).toBe(1);
  expect(plain.stderr).toContain("APP_URL must be the server's https:// address");
}, 120_000);

it('finds the errors the CLI reports although it says "built!" (theme check, as it printed it before the block was built)', () => {
  const output = [
    '       video-gift-message │ Running theme check on your Theme app extension...',
    '       video-gift-message │ \u001b[31m[error]\u001b[39m: AssetSizeAppBlockJavaScript',
    "       video-gift-message │ The file size for 'video-gift-message.js' (19732 B)",
    '│  doorstep built!                                                             │',
  ].join('\n');
  expect(cliErrorLines(output)).toEqual(['       video-gift-message │ [error]: AssetSizeAppBlockJavaScript']);
  expect(cliErrorLines('│  doorstep built!')).toEqual([]);
});
