import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startExtensionHost, type ExtensionHost } from '../extensions/record-video-link/extension-host.ts';
import { projectRoot } from '../support/processes.ts';

/**
 * The checkout's thank-you block (extensions/record-video-link), before and after the video is
 * recorded, for docs/gift-moment.md (`npm run screenshots`). Shopify's checkout draws the block's
 * components (`s-banner`, `s-button`, …) in the shop's checkout branding; this host only approximates
 * them with a few rules of its own, so the pictures show what the block says and offers, not
 * Shopify's exact pixels.
 */
const STAND_IN_LOOK = `<style>
  body { margin: 0; padding: 24px; font: 14px/1.5 -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f1f1f; background: #fff; }
  s-banner { display: block; border-radius: 8px; padding: 14px 16px; background: #eaf4ff; }
  s-banner[tone="success"] { background: #e9f6ec; }
  s-banner::before { content: attr(heading); display: block; font-weight: 600; font-size: 15px; margin-bottom: 6px; }
  s-stack { display: grid; gap: 12px; }
  s-text { display: block; }
  s-button { display: inline-block; justify-self: start; padding: 10px 18px; border-radius: 6px; background: #1773b0; color: #fff; font-weight: 600; cursor: pointer; }
</style>`;

let host: ExtensionHost;
beforeAll(async () => {
  host = await startExtensionHost();
});
afterAll(async () => {
  await host?.close();
});

const out = (name: string) => path.join(projectRoot, 'docs', 'screenshots', `${name}.png`);

it('the thank-you block: the record button, then "recorded"', async () => {
  const { shop, shopifyOrderId, order } = await host.placeOrder();
  const thankYou = { ...host.thankYouPage({ shop, shopifyOrderId }), head: STAND_IN_LOOK };
  for (const [name, heading] of [
    ['checkout-thank-you-record', 'Record your video message for Bob'],
    ['checkout-thank-you-recorded', 'Your video message for Bob is recorded'],
  ] as const) {
    if (name === 'checkout-thank-you-recorded')
      await host.app.services.orders.markRecorded(order.id, { durationTenths: 42 });
    const { page, problems } = await host.extensionPage(thankYou);
    try {
      await page.setViewportSize({ width: 480, height: 220 });
      await page.locator(`s-banner[heading="${heading}"]`).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: out(name) });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }
});
