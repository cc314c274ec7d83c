import { defineConfig } from 'vitest/config';

/**
 * `npm run screenshots`: regenerates docs/screenshots/*.png of the embedded admin (home, orders,
 * order, settings) in Chromium at 1280×900, over a store seeded through the real flows, of the
 * e-mails at phone and desktop width (test/screenshots/emails.screenshots.ts), of the record and
 * watch pages on a phone and a desktop (test/screenshots/gift-pages.screenshots.ts), of the
 * storefront block (test/screenshots/storefront-block.screenshots.ts), and of the checkout's
 * thank-you block (test/screenshots/checkout-extension.screenshots.ts). Not part
 * of `npm test` (its files are not `*.test.ts`); it reuses the tests' app, Redis and fake Shopify.
 */
export default defineConfig({
  test: {
    include: ['test/screenshots/**/*.screenshots.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
