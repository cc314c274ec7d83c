import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { startMailServer } from '../support/mail-server.ts';
import { testImage } from '../support/images.ts';
import { eventually } from '../support/workers.ts';
import {
  BOUNCING_RECIPIENT,
  openEmbeddedAdmin,
  PICKED_PRODUCTS,
  REFUSED_ORDER_NAME,
  seedStore,
  type EmbeddedAdmin,
  type SeededStore,
} from './embedded-admin.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

/**
 * The embedded admin in a real Chromium, loaded as the Shopify admin loads it (a URL with an
 * id_token; Shopify's App Bridge CDN answered by our stand-in, which signs real session tokens with
 * the test secret), against the real app over seeded orders made by signed webhooks, the record
 * link and the carrier sandbox. Each action is checked on the page and in the database.
 */
let app: ShopifyTestApp;
let fake: FakeShopify;
let close: (() => Promise<void>) | undefined;
let browser: Browser;
let seeded: SeededStore;
let mail: Awaited<ReturnType<typeof startMailServer>>;
const shop = `admin-ui-${Date.now()}.myshopify.com`;

beforeAll(async () => {
  // A real SMTP server that refuses one recipient once: that order's video fails and needs the merchant.
  mail = await startMailServer();
  mail.rejectRecipient(BOUNCING_RECIPIENT, 550, 1);
  ({ app, fake, close } = await startShopifyTestAppWithFakeShopify({ queue: true, env: { SMTP_URL: mail.url } }));
  const { auth } = await app.addShop(shop);
  seeded = await seedStore(app, shop, auth);
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await close?.();
  await mail?.close();
});

const db = () => app.services.database.db;
/** The test shop's row as saved now (the settings tests poll it until the page's save lands). */
const savedShop = () => db().selectFrom('shops').selectAll().where('domain', '=', shop).executeTakeFirstOrThrow();

/** Opens the admin at `path`; after the test, no script error or CSP refusal may have happened. */
async function withAdmin(path: string, use: (admin: EmbeddedAdmin) => Promise<void>): Promise<void> {
  const admin = await openEmbeddedAdmin(browser, app.baseUrl, shop, { path });
  try {
    await use(admin);
    expect(admin.problems).toEqual([]);
  } finally {
    await admin.close();
  }
}

/** A stage tab, also when Polaris moved it under "More views" for want of room. */
async function selectTab(page: Page, name: string): Promise<void> {
  const tab = page.getByRole('tab', { name, exact: true });
  if (!(await tab.isVisible())) await page.getByRole('button', { name: /More views/ }).click();
  await page
    .getByRole('tab', { name, exact: true })
    .or(page.getByRole('button', { name, exact: true }))
    .first()
    .click();
}

/** The order names in the orders table, once it has settled on exactly `expected` (in any order). */
async function expectOrderNames(page: Page, expected: string[]): Promise<void> {
  await expect
    .poll(
      async () =>
        (await page.locator('#orders-panel tbody tr').allInnerTexts()).map((row) => row.split(/\s/)[0]).sort(),
      { timeout: 15_000 },
    )
    .toEqual([...expected].sort());
}

describe('the embedded admin in a browser', () => {
  it('home: the last 30 days’ counts, from the API with a session token', async () => {
    await withAdmin('/', async ({ page }) => {
      const authorizations: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/shopify/api/'))
          authorizations.push(request.headers().authorization ?? '');
      });
      await page.reload();
      /** A tile's figure: its last line (the first is its label). */
      const count = async (id: string) => (await page.locator(`#count-${id}`).innerText()).trim().split('\n').at(-1);
      await expect.poll(() => count('video-orders'), { timeout: 15_000 }).toBe('6');
      // #1001 and #1006 were delivered; #1001's video went out, #1006's bounced and needs the merchant.
      expect(await count('delivered')).toBe('2');
      expect(await count('sent')).toBe('1');
      expect(await count('viewed')).toBe('0');
      expect(await count('needs-attention')).toBe('1');
      // The paid video line that made no video order, with its reason (rule 3 in the merchant's sight).
      const refused = await page.locator('#refused-lines').innerText();
      expect(refused).toContain(REFUSED_ORDER_NAME);
      expect(refused).toContain(
        'cannot become a video order: the order has no customer e-mail address to send it from',
      );
      // Every call carried a fresh session token minted by (the stand-in of) App Bridge.
      expect(authorizations.length).toBeGreaterThan(0);
      for (const header of authorizations) expect(header).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    });
    // The first load installed the shop by token exchange, as in the Shopify admin.
    expect(fake.grants.filter((g) => g.shop === shop).map((g) => g.grant_type)).toContain(
      'urn:ietf:params:oauth:grant-type:token-exchange',
    );
  });

  it('home: this month’s bill, and “Approve plan” opens Shopify’s confirmation page at the top level', async () => {
    const response = await fetch(`${app.baseUrl}/shopify/api/billing`, {
      headers: { Authorization: `Bearer ${sessionToken(shop, API_KEY, SECRET)}` },
    });
    const billing = (await response.json()) as { subscription: { confirmation_url: string }; notice: string };
    // The fake Shopify's approval page, where Shopify would ask the merchant to approve.
    const confirmationUrl = billing.subscription.confirmation_url;
    expect(confirmationUrl).toBeTruthy();
    await withAdmin('/', async ({ page }) => {
      await page.locator('#billing-notice').waitFor({ timeout: 15_000 });
      expect(await page.locator('#billing-notice').innerText()).toBe(billing.notice);
      await page.getByRole('button', { name: 'Approve plan' }).click();
      await page.waitForURL(confirmationUrl);
    });
  });

  it('orders on a phone (375 px): each row stacked, its stage and date on screen (storefront probe: cut off)', async () => {
    const admin = await openEmbeddedAdmin(browser, app.baseUrl, shop, {
      path: '/orders',
      viewport: { width: 375, height: 800 },
    });
    try {
      const { page } = admin;
      // Polaris's condensed list: each order is a list item, not a table row.
      const row = page.locator('#orders-panel li').filter({ hasText: '#1003' }).first();
      await row.waitFor({ timeout: 15_000 });
      for (const part of [row.getByText('Needs recipient').first(), row.getByText(/\d{4}, \d{1,2}:\d{2}/).first()]) {
        const box = (await part.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(375);
      }
      expect(admin.problems).toEqual([]);
    } finally {
      await admin.close();
    }
  });

  it('orders: filters by stage, searches by name and by Shopify order, opens an order with its story in words', async () => {
    await withAdmin('/', async ({ page }) => {
      // In-page navigation (history API), as the admin's menu does it.
      await page.getByRole('button', { name: 'Orders', exact: true }).filter({ visible: true }).click();
      await page.waitForURL((url) => url.pathname === '/orders');
      await expectOrderNames(page, ['#1001', '#1002', '#1003', '#1004', '#1005', '#1006']);

      await selectTab(page, 'Needs recipient');
      await expectOrderNames(page, ['#1003']);
      // A screen reader hears who the order waits on, not the badge's colour (merchant probe: "Attention").
      const row = await page.getByRole('row').filter({ hasText: '#1003' }).innerText();
      expect(row).toContain('Waiting on the shopper:');
      expect(row).not.toContain('Attention');
      await selectTab(page, 'Sent');
      await expectOrderNames(page, ['#1001']);
      await selectTab(page, 'Needs attention');
      await expectOrderNames(page, ['#1006']);

      await selectTab(page, 'All');
      await page.getByPlaceholder(/Search by name/).fill('lovelace');
      await expectOrderNames(page, ['#1002']);
      await page.getByPlaceholder(/Search by name/).fill('#1001');
      await expectOrderNames(page, ['#1001']);

      await page.getByRole('link', { name: '#1001' }).click();
      await page.waitForURL((url) => url.pathname === `/orders/${seeded.sent.orderId}`);
      const timeline = page.locator('#timeline');
      await timeline.getByText('The video order was created from the Shopify order').waitFor({ timeout: 15_000 });
      for (const words of ['The sender recorded the video', 'The video was sent to the recipient by e-mail']) {
        await timeline.getByText(words).first().waitFor();
      }
      // Each entry says who did it and when; never an event code.
      expect(await timeline.innerText()).toMatch(/Shopify · \w{3} \d{1,2}, \d{4}/);
      expect(await page.locator('body').innerText()).not.toMatch(/\b(order|video|send|tracking)\.[a-z_]+\b/);
      await page.getByText('Sent', { exact: true }).first().waitFor();
      expect(await page.locator('#tracking').innerText()).toContain(seeded.sent.trackingNumber!);
    });
  });

  it('orders and an order at phone width: nothing runs off the screen, and the order’s video plays', async () => {
    const admin = await openEmbeddedAdmin(browser, app.baseUrl, shop, {
      path: '/orders',
      viewport: { width: 390, height: 844 },
    });
    try {
      const { page } = admin;
      // Condensed on a phone: each order is a stacked row with its link.
      await expect.poll(() => page.locator('#orders-panel a').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(await overflow()).toBeLessThanOrEqual(0);
      // An order with a processed video: its page has the player, and the video loads.
      const sent = await db()
        .selectFrom('orders')
        .select('id')
        .where('video_processed', '=', true)
        .executeTakeFirstOrThrow();
      await page.goto(new URL(`/orders/${sent.id}?${new URL(page.url()).searchParams}`, page.url()).toString());
      const video = page.locator('#order-video');
      await video.waitFor({ timeout: 15_000 });
      await expect
        .poll(() => video.evaluate((element) => (element as unknown as { readyState: number }).readyState), {
          timeout: 15_000,
        })
        .toBeGreaterThanOrEqual(1);
      expect(await page.locator('#order-price').innerText()).toMatch(/^Price: /);
      expect(await overflow()).toBeLessThanOrEqual(0);
      expect(admin.problems).toEqual([]);
    } finally {
      await admin.close();
    }
  });

  it('order: resend after a bounce — a new send in the database, the page shows it, and it goes out', async () => {
    const { orderId } = seeded.bounced;
    const recipientSends = () =>
      db()
        .selectFrom('sends')
        .select(['id', 'status'])
        .where('order_id', '=', orderId)
        .where('kind', '=', 'recipient_video')
        .execute();
    expect((await recipientSends()).map((send) => send.status)).toEqual(['failed']);
    await withAdmin(`/orders/${orderId}`, async ({ page }) => {
      // Why it needs the merchant, in words, and the failure on the timeline.
      await page.locator('#attention').waitFor({ timeout: 15_000 });
      await page
        .locator('#timeline')
        .getByText(/failed/)
        .first()
        .waitFor();
      await page.getByRole('button', { name: 'Resend' }).click();
      await page.locator('#timeline').getByText('A resend was requested').waitFor({ timeout: 15_000 });
      await page.locator('.app-bridge-toast', { hasText: 'being sent again' }).waitFor();
      // The dispatcher sends it (the mail server refused only once); the page shows the new state.
      await eventually(
        async () => ((await recipientSends()).some((send) => send.status === 'sent') ? true : undefined),
        30_000,
        'the resent video',
      );
      await page.reload();
      await page.locator('#timeline').getByText('The video was sent to the recipient by e-mail').waitFor({
        timeout: 15_000,
      });
      expect(await page.locator('#attention').count()).toBe(0);
      // Sent to the address the order holds: Resend is off, and its tooltip says why and what would help.
      const resend = page.getByRole('button', { name: 'Resend' });
      expect(await resend.isDisabled()).toBe(true);
      await resend.hover({ force: true });
      await page.getByText("already sent to the recipient's current address").waitFor({ timeout: 5_000 });
    });
    const sends = await recipientSends();
    expect(sends.map((send) => send.status).sort()).toEqual(['failed', 'sent']);
    const resendRequests = await db()
      .selectFrom('order_events')
      .select(['type', 'source'])
      .where('order_id', '=', orderId)
      .where('type', '=', 'send.resend_requested')
      .execute();
    expect(resendRequests).toEqual([{ type: 'send.resend_requested', source: 'admin' }]);
    expect(mail.messages.some((message) => message.to.includes(BOUNCING_RECIPIENT))).toBe(true);
  });

  it('order: edit the recipient in a modal — saved in the database and shown', async () => {
    await withAdmin(`/orders/${seeded.awaiting_video.orderId}`, async ({ page }) => {
      await page.getByRole('button', { name: 'Edit recipient' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('E-mail').fill('babbage@example.com');
      await dialog.getByLabel('Name').fill('Charles B.');
      await dialog.getByRole('button', { name: 'Save recipient' }).click();
      await expect
        .poll(() => page.locator('#recipient-email').innerText(), { timeout: 15_000 })
        .toBe('babbage@example.com');
      expect(await page.locator('#recipient-name').innerText()).toBe('Charles B.');
      await page.locator('#timeline').getByText('The order details were changed').waitFor();
    });
    const order = await db()
      .selectFrom('orders')
      .select(['recipient_email', 'recipient_name'])
      .where('id', '=', seeded.awaiting_video.orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ recipient_email: 'babbage@example.com', recipient_name: 'Charles B.' });
  });

  it('order: an invalid recipient e-mail shows the API’s words, and nothing changes', async () => {
    await withAdmin(`/orders/${seeded.awaiting_video.orderId}`, async ({ page }) => {
      await page.getByRole('button', { name: 'Edit recipient' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('E-mail').fill('not-an-address');
      await dialog.getByRole('button', { name: 'Save recipient' }).click();
      await dialog.getByRole('alert').or(dialog.locator('.Polaris-Banner')).first().waitFor({ timeout: 15_000 });
      expect(await dialog.innerText()).toMatch(/not valid|e-mail/i);
    });
    const order = await db()
      .selectFrom('orders')
      .select('recipient_email')
      .where('id', '=', seeded.awaiting_video.orderId)
      .executeTakeFirstOrThrow();
    expect(order.recipient_email).toBe('babbage@example.com');
  });

  it('order: copy the record link to the clipboard, with a toast', async () => {
    await withAdmin(`/orders/${seeded.awaiting_video.orderId}`, async ({ page }) => {
      const recordUrl = await page.locator('#record-url').innerText({ timeout: 15_000 });
      expect(recordUrl).toMatch(/\/record\//);
      await page.getByRole('button', { name: 'Copy record link' }).click();
      await page.locator('.app-bridge-toast', { hasText: 'Record link copied' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(recordUrl);
    });
  });

  it('settings: map an unmapped tracking company, then change a mapping — in the database and on the page', async () => {
    await withAdmin('/settings', async ({ page }) => {
      const quickMap = page.getByLabel('Map Canada Post to…');
      await quickMap.waitFor({ timeout: 15_000 });
      await quickMap.selectOption('usps');
      await page.locator('.app-bridge-toast', { hasText: 'Settings saved' }).waitFor();
      await expect.poll(async () => (await savedShop()).carrier_aliases).toEqual({ 'Canada Post': 'usps' });
      // Mapped: it leaves the unmapped list and is a row of the form.
      await expect.poll(() => page.getByLabel('Map Canada Post to…').count()).toBe(0);
      await expect.poll(() => page.getByLabel('Tracking company').inputValue()).toBe('Canada Post');

      await page.getByLabel('Carrier').selectOption('fedex');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(async () => (await savedShop()).carrier_aliases).toEqual({ 'Canada Post': 'fedex' });
      await page.reload();
      await expect.poll(() => page.getByLabel('Carrier').inputValue(), { timeout: 15_000 }).toBe('fedex');
    });
  });

  it('settings: the logo URL, the not-watched note and the language are saved for the shop’s account', async () => {
    await withAdmin('/settings', async ({ page }) => {
      const logo = page.getByLabel('Or a logo’s address');
      await logo.waitFor({ timeout: 15_000 });
      await logo.fill('https://images.example.com/logo.png');
      await page.getByLabel('Tell the sender when the gift has not been watched after three days').uncheck();
      await page.getByLabel('Language of pages and messages').selectOption('fr');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('.app-bridge-toast', { hasText: 'Settings saved' }).waitFor();
      // The language is the account's, which every page and message of the shop reads.
      const language = async () =>
        (
          await db()
            .selectFrom('accounts')
            .innerJoin('shops', 'shops.account_id', 'accounts.id')
            .select('accounts.locale')
            .where('shops.domain', '=', shop)
            .executeTakeFirstOrThrow()
        ).locale;
      await expect.poll(language).toBe('fr');
      const stored = () =>
        db()
          .selectFrom('account_settings')
          .innerJoin('shops', 'shops.account_id', 'account_settings.account_id')
          .select(['logo_url', 'not_watched_note'])
          .where('shops.domain', '=', shop)
          .executeTakeFirst();
      await expect.poll(stored).toEqual({ logo_url: 'https://images.example.com/logo.png', not_watched_note: false });
      await page.reload();
      await expect
        .poll(() => page.getByLabel('Or a logo’s address').inputValue(), { timeout: 15_000 })
        .toBe('https://images.example.com/logo.png');
      await expect.poll(() => page.getByLabel('Language of pages and messages').inputValue()).toBe('fr');
      // Emptied: no logo; the pages show the store's name.
      await page.getByLabel('Or a logo’s address').fill('');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(stored).toEqual({ logo_url: null, not_watched_note: false });
    });
  });

  it('settings: the accent, font and reply-to address, previewed live as typed, saved for the account', async () => {
    await withAdmin('/settings', async ({ page }) => {
      const accent = page.getByLabel('Accent colour', { exact: true });
      await accent.waitFor({ timeout: 15_000 });
      const play = page.locator('#brand-preview-play');
      const colours = () =>
        play.evaluate((element) => {
          const style = (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; color: string } }
          ).getComputedStyle(element);
          return [style.backgroundColor, style.color];
        });
      expect(await colours()).toEqual(['rgb(180, 35, 42)', 'rgb(255, 255, 255)']);
      await accent.fill('#ffe27a');
      // A pale accent: the preview's play symbol turns dark, as the pages' does.
      await expect.poll(colours).toEqual(['rgb(255, 226, 122)', 'rgb(43, 33, 24)']);
      await accent.fill('#1a5e63');
      await page.getByLabel('Font').selectOption('classic');
      // A refusal is said in the merchant's words, not the API's (merchant probe: "contact_email: …").
      await page.getByLabel('Reply-to e-mail').fill('not an address');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Contact e-mail: must be a valid e-mail address').first().waitFor();
      expect(await page.getByText('contact_email').count()).toBe(0);
      await page.getByLabel('Reply-to e-mail').fill('hello@maple.example');
      await expect
        .poll(() =>
          page
            .locator('#brand-preview')
            .evaluate((e) => (e as unknown as { style: { fontFamily: string } }).style.fontFamily),
        )
        .toContain('Georgia');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('.app-bridge-toast', { hasText: 'Settings saved' }).waitFor();
      const stored = () =>
        db()
          .selectFrom('account_settings')
          .innerJoin('shops', 'shops.account_id', 'account_settings.account_id')
          .select(['accent_color', 'font', 'contact_email'])
          .where('shops.domain', '=', shop)
          .executeTakeFirst();
      await expect
        .poll(stored)
        .toEqual({ accent_color: '#1a5e63', font: 'classic', contact_email: 'hello@maple.example' });
    });
  });

  it('settings: a logo uploaded is re-encoded, previewed and used; removed, it goes', async () => {
    await withAdmin('/settings', async ({ page }) => {
      await page.getByText('No logo: pages and e-mails show your store').waitFor({ timeout: 15_000 });
      await page.locator('input[type=file]').setInputFiles({
        name: 'logo.jpg',
        mimeType: 'image/jpeg',
        buffer: await testImage(900, 300, 'jpg'),
      });
      await page.locator('.app-bridge-toast', { hasText: 'Logo saved' }).waitFor();
      const preview = page.locator('#logo-preview');
      expect(await preview.getAttribute('src')).toMatch(/\/brand\/[^/]+\/[0-9a-f]{64}\.png$/);
      // The preview loaded: the image Doorstep made, 600×200.
      await expect
        .poll(() =>
          preview.evaluate((element) => {
            const img = element as unknown as { naturalWidth: number; naturalHeight: number };
            return [img.naturalWidth, img.naturalHeight];
          }),
        )
        .toEqual([600, 200]);
      await page.getByRole('button', { name: 'Remove the logo' }).click();
      await page.locator('.app-bridge-toast', { hasText: 'Logo removed' }).waitFor();
      await page.getByText('No logo: pages and e-mails show your store').waitFor();
    });
  });

  it('settings: products chosen with App Bridge’s resource picker are saved as numeric ids', async () => {
    await withAdmin('/settings', async ({ page }) => {
      await page.getByRole('button', { name: 'Choose products' }).click({ timeout: 15_000 });
      for (const product of PICKED_PRODUCTS) await page.getByText(product.title).waitFor();
      const calls = await page.evaluate('window.__appBridgeStandin.pickerCalls');
      expect(calls).toEqual([expect.objectContaining({ type: 'product', multiple: true })]);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('.app-bridge-toast', { hasText: 'Settings saved' }).waitFor();
    });
    await expect.poll(async () => (await savedShop()).video_product_ids).toEqual(['7001', '7002']);
  });
});
