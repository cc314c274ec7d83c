import { defineConfig } from 'vitest/config';

/**
 * `npm run bench:pages`: Lighthouse on the record and watch pages (bench/page-quality.pages.ts), with
 * the tests' Redis. Not part of `npm test`: a score is a figure of the machine, not a pass or fail.
 */
export default defineConfig({
  test: {
    include: ['bench/**/*.pages.ts'],
    testTimeout: 300_000,
    hookTimeout: 240_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
