import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { chromiumForFile } from '../support/chromium.ts';
import { projectRoot } from '../support/processes.ts';
import { fixture, openStorefront, renderStorefrontPage, type Cart, type Product } from '../storefront/storefront.ts';

/**
 * The storefront block on a product page, for docs/shopify.md (`npm run screenshots`): the test
 * storefront's Dawn-like page (test/storefront/storefront.ts) with the block's real Liquid, script and
 * stylesheet and a $5.00 add-on, pictured on a phone 320 wide (the narrowest a theme must hold) and a
 * desktop (1280×800), cropped to the product's column. Each picture is one entry of `shots`
 * (docs/screenshots/{name}-{phone,desktop}.png).
 */
interface Shot {
  name: string;
  /** Brings the loaded page to the state the picture shows. */
  show(page: Page): Promise<void>;
}

/** Ticked, a name typed and an e-mail without its domain's end, and the add-to-cart tried. */
async function showInvalidEmail(page: Page): Promise<void> {
  await page.getByRole('checkbox', { name: /^Add a video message/ }).check();
  await page.getByLabel("Recipient's name").fill('Grandpa Joe');
  await page.getByLabel("Recipient's e-mail").fill('joe@example');
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByText('Enter an e-mail address like name@example.com.').waitFor();
}

const shots: Shot[] = [
  { name: 'storefront-block', show: async () => {} },
  {
    name: 'storefront-block-open',
    show: async (page) => {
      await page.getByRole('checkbox', { name: /^Add a video message/ }).check();
      await page.getByLabel("Recipient's name").fill('Grandpa Joe');
      await page.getByLabel("Recipient's e-mail").fill('joe@example.com');
    },
  },
  { name: 'storefront-block-invalid', show: showInvalidEmail },
  {
    // A dark theme: the block has no colour of its own, so it follows the theme's (its error red too).
    name: 'storefront-block-dark',
    show: async (page) => {
      await page.addStyleTag({
        content:
          ':root { --color-foreground: 243, 238, 230; --color-background: 36, 31, 28; --color-button: 243, 238, 230; --color-button-text: 36, 31, 28; color-scheme: dark; }',
      });
      await showInvalidEmail(page);
    },
  },
];

const devices = {
  phone: { width: 320, height: 720 },
  desktop: { width: 1280, height: 800 },
};

const out = (name: string) => path.join(projectRoot, 'docs', 'screenshots', `${name}.png`);

let browser: Browser;
chromiumForFile((launched) => (browser = launched));

it('the storefront block on a product page, on a phone and a desktop', async () => {
  const html = await renderStorefrontPage('dawn-product-page', {
    product: fixture<Product>('gift-product.json'),
    cart: fixture<Cart>('cart.json'),
    videoProduct: fixture<Product>('video-product.json'),
  });
  for (const shot of shots) {
    for (const [device, viewport] of Object.entries(devices)) {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        const store = await openStorefront(page, '/products/moon-lamp', html);
        await page.getByRole('checkbox', { name: /^Add a video message/ }).waitFor();
        await shot.show(page);
        // The picture shows the page at rest, not the focus ring of the last field typed in, and
        // from its top: the boxes measured below are then where the full-page picture has them.
        await page.evaluate('document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)');
        await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
        // The product column, from its title down to the block's end.
        const column = await page.locator('.product__info').boundingBox();
        const block = await page.locator('video-gift-message').boundingBox();
        if (!column || !block) throw new Error('the product column or the block is not on the page');
        const margin = 16;
        const x = Math.max(0, column.x - margin);
        const y = Math.max(0, column.y - margin);
        await page.screenshot({
          path: out(`${shot.name}-${device}`),
          fullPage: true,
          clip: {
            x,
            y,
            width: Math.min(viewport.width, column.x + column.width + margin) - x,
            height: block.y + block.height + margin - y,
          },
        });
        expect(store.problems, `${shot.name} on ${device}`).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }
});
