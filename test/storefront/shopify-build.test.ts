import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

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
