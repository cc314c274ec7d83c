import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { AXE_SOURCE } from '../support/axe.ts';
import { chromiumForFile } from '../support/chromium.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { orderToVideoOrder, videoLineItems } from '../../src/shopify/orders/mapping.ts';
import { shopifyOrder } from '../../src/shopify/orders/payloads.ts';
import {
  fixture,
  openStorefront,
  renderStorefrontPage,
  SHOP_ORIGIN,
  type Cart,
  type CartAnswer,
  type Product,
  type Storefront,
  type ThemePage,
} from './storefront.ts';

/**
 * The "Video gift message" app block in a real (headless) Chromium: its Liquid rendered into small
 * theme pages, its real script and stylesheet, and a fake Shopify cart API that records exactly what
 * the storefront posts. What it posts is checked against the server's own order mapping.
 */
/** The shopper's day: the date field accepts this day and later ones. */
const TODAY = '2026-12-01';
const GIFT_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
}

const giftProduct = fixture<Product>('gift-product.json');
const videoProduct = fixture<Product>('video-product.json');
const cart = fixture<Cart>('cart.json');

let browser: Browser;
let context: BrowserContext | undefined;

chromiumForFile((launched) => (browser = launched));
afterEach(async () => {
  await context?.close();
  context = undefined;
});

/** A shopper in Berlin at 10:00 on TODAY, on one storefront page (the test's previous page closed). */
async function visit(
  themePage: ThemePage,
  options: { videoProduct: Product | null; answer?: CartAnswer; settings?: Record<string, unknown> },
): Promise<{ page: Page; store: Storefront }> {
  await context?.close();
  context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  await page.clock.setFixedTime(new Date(`${TODAY}T10:00:00+01:00`));
  const html = await renderStorefrontPage(themePage, {
    product: giftProduct,
    cart,
    videoProduct: options.videoProduct,
    settings: options.settings,
  });
  const pagePath = themePage === 'cart-page' ? '/cart' : `/products/${giftProduct.handle}`;
  const store = await openStorefront(page, pagePath, html, options.answer);
  return { page, store };
}

interface MessageInput {
  name?: string;
  email?: string;
  phone?: string;
  trigger?: 'When the gift is delivered' | 'On a date' | 'Right after I record it';
  sendOn?: string;
}

async function fillMessage(page: Page, input: MessageInput): Promise<void> {
  await page.getByLabel('Add a video message').check();
  if (input.name !== undefined) await page.getByLabel("Recipient's name").fill(input.name);
  if (input.email !== undefined) await page.getByLabel("Recipient's e-mail").fill(input.email);
  if (input.phone !== undefined) await page.getByLabel("Recipient's mobile number").fill(input.phone);
  if (input.trigger) await page.getByLabel(input.trigger).check();
  if (input.sendOn !== undefined) await page.getByLabel('Send on').fill(input.sendOn);
}

/**
 * What a screen reader announces on an element (by default the focused one, as the focus lands on
 * it): Chromium's own accessibility tree for it, its name, whether it is invalid, and its description.
 */
async function announcementOf(
  page: Page,
  selector = ':focus',
): Promise<{ name: string; invalid: boolean; description: string }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const node = nodes[0]!;
    const invalid = node.properties?.find((property) => property.name === 'invalid')?.value.value;
    return {
      name: String(node.name?.value ?? ''),
      invalid: invalid !== undefined && invalid !== 'false',
      description: String(node.description?.value ?? ''),
    };
  } finally {
    await cdp.detach();
  }
}

const addToCart = (page: Page) => page.getByRole('button', { name: 'Add to cart' }).click();
/** Adds to cart and waits for the theme's "Added to cart" confirmation. */
const addedToCart = async (page: Page) => {
  await addToCart(page);
  await page.getByText('Added to cart').waitFor();
};

/** What a Dawn-like theme's own form posts for the gift (the fixture's variant 40001), with these fields after. */
const dawnGiftForm = (...fields: Array<[string, unknown]>) => ({
  path: '/cart/add',
  body: [['form_type', 'product'], ['id', '40001'], ...fields],
});

/** What the block posts to add one video message add-on (the fixture's variant 50001) carrying these properties. */
const addOnRequest = (properties: Record<string, unknown>) => ({
  path: '/cart/add.js',
  body: { items: [{ id: 50001, quantity: 1, properties }] },
});

/** The `properties[…]` of a posted form, as a property object. */
function propertiesOf(pairs: unknown): Record<string, string> {
  return Object.fromEntries(
    (pairs as Array<[string, string]>)
      .filter(([name]) => name.startsWith('properties['))
      .map(([name, value]) => [name.slice('properties['.length, -1), value]),
  );
}

/** A Shopify order with these lines, through the same parsing as a webhook. */
function orderWithLines(lines: Array<{ id: number; variantId: number; properties: Record<string, string> }>) {
  return shopifyOrder.parse({
    id: 9001,
    email: 'ann@example.com',
    customer: { id: 1, email: 'ann@example.com', first_name: 'Ann', last_name: 'Sender' },
    shipping_address: { name: 'Shipping Name' },
    line_items: lines.map((line) => ({
      id: line.id,
      product_id: 1,
      variant_id: line.variantId,
      quantity: 1,
      price: '25.00',
      properties: Object.entries(line.properties).map(([name, value]) => ({ name, value })),
    })),
  });
}

/** The checkbox's label as the eye reads it (innerText: only what is rendered, spaces collapsed). */
const labelText = (page: Page) =>
  page.locator('label', { has: page.getByRole('checkbox', { name: /^Add a video message/ }) }).innerText();

describe('what the shopper sees', () => {
  const pricedAt = (cents: number): Product => ({
    ...videoProduct,
    selected_or_first_available_variant: { ...videoProduct.selected_or_first_available_variant, price: cents },
  });

  it("shows the add-on's price beside the checkbox, read from the add-on product, on the product and the cart page", async () => {
    for (const [themePage, cents, price] of [
      ['dawn-product-page', 500, '$5.00'],
      ['classic-product-page', 1250, '$12.50'],
      ['cart-page', 123456, '$1,234.56'],
    ] as const) {
      const { page, store } = await visit(themePage, { videoProduct: pricedAt(cents) });
      expect(await labelText(page), themePage).toBe(`Add a video message · ${price}`);
      // The dot is for the eye; a screen reader hears the label and the price.
      await page.getByRole('checkbox', { name: `Add a video message ${price}`, exact: true }).waitFor();
      expect(store.problems).toEqual([]);
    }
  });

  it('shows no price without an add-on product: the message costs nothing extra', async () => {
    for (const themePage of ['dawn-product-page', 'cart-page'] as const) {
      const { page } = await visit(themePage, { videoProduct: null });
      expect(await labelText(page), themePage).toBe('Add a video message');
      await page.getByRole('checkbox', { name: 'Add a video message', exact: true }).waitFor();
    }
  });

  it('previews what the recipient gets: a drawing hidden from screen readers, its words read with the checkbox', async () => {
    for (const themePage of ['dawn-product-page', 'cart-page'] as const) {
      const { page, store } = await visit(themePage, { videoProduct });
      const drawing = page.locator('video-gift-message svg');
      expect(await drawing.count(), themePage).toBe(1);
      expect(await drawing.getAttribute('aria-hidden')).toBe('true');
      // Drawn, at a size to be seen, not collapsed by the layout.
      expect((await drawing.boundingBox())?.width).toBeGreaterThan(40);
      await page.getByText('Your video arrives the moment the gift does.').waitFor();
      expect(await announcementOf(page, '[data-video-gift="enabled"]')).toEqual({
        name: 'Add a video message $5.00',
        invalid: false,
        description:
          'Your video arrives the moment the gift does. After checkout you get a link to record it, on your phone or computer.',
      });
      // Nothing is fetched for it: the page asks for itself and the block's stylesheet and script only.
      expect(store.requests.map((request) => request.replace(SHOP_ORIGIN, ''))).toEqual([
        `GET ${themePage === 'cart-page' ? '/cart' : '/products/moon-lamp'}`,
        'GET /extension-assets/video-gift-message.css',
        'GET /extension-assets/video-gift-message.js',
      ]);
      expect(store.problems).toEqual([]);
    }
  });

  it('leaves the drawing out when the merchant clears its words, and the description when both texts are cleared', async () => {
    const { page } = await visit('dawn-product-page', { videoProduct, settings: { preview_text: '' } });
    await page.getByText('After checkout you get a link to record it').waitFor();
    expect(await page.locator('video-gift-message svg').count()).toBe(0);
    expect((await announcementOf(page, '[data-video-gift="enabled"]')).description).toBe(
      'After checkout you get a link to record it, on your phone or computer.',
    );

    const { page: bare } = await visit('dawn-product-page', {
      videoProduct,
      settings: { preview_text: '', intro: '' },
    });
    const box = bare.getByRole('checkbox', { name: /^Add a video message/ });
    await box.waitFor();
    // No description pointing at nothing.
    expect(await box.getAttribute('aria-describedby')).toBeNull();
    expect(await bare.locator('video-gift-message svg').count()).toBe(0);
  });

  it("is set in the theme's type and colours: font, size and colour inherited, the form's controls too", async () => {
    const { page } = await visit('dawn-product-page', { videoProduct });
    const box = page.getByRole('checkbox', { name: /^Add a video message/ });
    await box.check();
    const typeOf = (locator: Locator) =>
      locator.evaluate((element) => {
        const style = element.ownerDocument.defaultView!.getComputedStyle(element);
        return { fontFamily: style.fontFamily, fontSize: style.fontSize, color: style.color };
      });
    const theme = await typeOf(page.locator('.product__info'));
    // The fixture theme's own font (a serif), not the browser's default.
    expect(theme.fontFamily).toMatch(/^Georgia,/);
    const parts: Array<[string, Locator]> = [
      ['the block', page.locator('video-gift-message')],
      ["the checkbox's label", page.locator('label', { has: box })],
      ['the preview', page.getByText('Your video arrives the moment the gift does.')],
      ["a field's label", page.getByText("Recipient's name")],
      ['a text field', page.getByLabel("Recipient's name")],
      ['a telephone field', page.getByLabel("Recipient's mobile number")],
      ['a radio button', page.getByLabel('On a date')],
    ];
    for (const [part, locator] of parts) expect(await typeOf(locator), part).toEqual(theme);
  });

  it('has no serious or critical accessibility problem (axe), closed, and open with an error', async () => {
    const { page } = await visit('dawn-product-page', { videoProduct });
    await page.evaluate(AXE_SOURCE);
    const seriousProblems = () =>
      page.evaluate(async () => {
        const axe = (
          globalThis as unknown as { axe: { run: (context: string, options: object) => Promise<AxeResult> } }
        ).axe;
        const { violations } = await axe.run('video-gift-message', { resultTypes: ['violations'] });
        return violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
      });
    expect(await seriousProblems()).toEqual([]);
    await fillMessage(page, { email: 'bob@example' });
    await addToCart(page);
    await page.getByText('Enter an e-mail address like name@example.com.').waitFor();
    expect(await seriousProblems()).toEqual([]);
  });

  it('shows the recipient fields only while the box is ticked, on the product and the cart page', async () => {
    for (const themePage of ['dawn-product-page', 'cart-page'] as const) {
      const { page } = await visit(themePage, { videoProduct });
      const fields = [
        page.getByLabel("Recipient's name"),
        page.getByLabel("Recipient's e-mail"),
        page.getByLabel("Recipient's mobile number"),
        page.getByRole('group', { name: 'When should we send the video?' }),
        ...(themePage === 'cart-page'
          ? [page.getByLabel('Which gift is the message for?'), page.getByRole('button', { name: 'Add video message' })]
          : []),
      ];
      const visible = () => Promise.all(fields.map((field) => field.isVisible()));
      const box = page.getByRole('checkbox', { name: /^Add a video message/ });
      await box.waitFor();
      expect(await visible(), themePage).toEqual(fields.map(() => false));
      await box.check();
      expect(await visible(), themePage).toEqual(fields.map(() => true));
      await box.uncheck();
      expect(await visible(), themePage).toEqual(fields.map(() => false));
    }
  });
});

describe('setup 1: the message rides on the gift line', () => {
  it("a Dawn-like theme's own add-to-cart posts the message properties with the gift", async () => {
    const { page, store } = await visit('dawn-product-page', { videoProduct: null });
    await fillMessage(page, { name: '  Bob Example ', email: 'bob@example.com' });
    await addedToCart(page);

    expect(store.cartRequests).toEqual([
      dawnGiftForm(
        ['properties[Recipient name]', 'Bob Example'],
        ['properties[_recipient_email]', 'bob@example.com'],
        ['properties[_send_trigger]', 'package'],
        ['properties[_video_message]', 'yes'],
      ),
    ]);
    // The server's mapping makes exactly this line a video order, with the shopper's answers.
    const order = orderWithLines([{ id: 11, variantId: 40001, properties: propertiesOf(store.cartRequests[0]!.body) }]);
    const [line] = videoLineItems(order, { videoProductIds: [], videoVariantIds: [] });
    expect(orderToVideoOrder(order, line!)).toMatchObject({
      ok: true,
      order: { recipient_name: 'Bob Example', recipient_email: 'bob@example.com', send_trigger: 'package' },
    });
    expect(store.problems).toEqual([]);
  });

  it('takes a number written with brackets, dots or 00, and Enter in a field adds the gift (storefront probe)', async () => {
    for (const [typed, stored] of [
      ['+1 (415) 555.0123', '+14155550123'],
      ['0044 20 7946 0958', '+442079460958'],
    ]) {
      const { page, store } = await visit('dawn-product-page', { videoProduct: null });
      await fillMessage(page, { phone: typed });
      await page.getByLabel("Recipient's mobile number").press('Enter');
      await page.getByText('Added to cart').waitFor();
      expect(store.cartRequests).toEqual([
        dawnGiftForm(
          ['properties[_recipient_phone]', stored],
          ['properties[_send_trigger]', 'package'],
          ['properties[_video_message]', 'yes'],
        ),
      ]);
      expect(store.problems).toEqual([]);
    }
  });

  it('offers nothing without its script, and says why (storefront probe: a ticked box added no message)', async () => {
    const html = await renderStorefrontPage('dawn-product-page', { product: giftProduct, cart, videoProduct: null });
    await context?.close();
    context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await openStorefront(page, `/products/${giftProduct.handle}`, html);
    expect(await page.getByLabel('Add a video message').isVisible()).toBe(false);
    // A browser without scripts shows <noscript> (Playwright turns scripts off, not the parser's flag).
    expect(await page.content()).toMatch(
      /<noscript>\s*<p class="video-gift-message__no-script">To add a video message to this gift, turn on JavaScript in your browser\.<\/p>/,
    );
  });

  it('an older theme (its form found by its /cart/add action) posts them too: phone without separators, a date', async () => {
    const { page, store } = await visit('classic-product-page', { videoProduct: null });
    await fillMessage(page, { phone: '+49 151-2345 6789', trigger: 'On a date', sendOn: '2026-12-24' });
    await addToCart(page);
    await page.getByRole('heading', { name: 'Cart' }).waitFor();

    expect(store.cartRequests).toEqual([
      {
        path: '/cart/add',
        body: [
          ['id', '40001'],
          ['properties[Send on]', '2026-12-24'],
          ['properties[_recipient_phone]', '+4915123456789'],
          ['properties[_send_trigger]', 'date'],
          ['properties[_video_message]', 'yes'],
          ['quantity', '1'],
        ],
      },
    ]);
    const order = orderWithLines([{ id: 11, variantId: 40001, properties: propertiesOf(store.cartRequests[0]!.body) }]);
    expect(orderToVideoOrder(order, order.line_items[0]!)).toMatchObject({
      ok: true,
      order: {
        recipient_name: 'Shipping Name',
        recipient_phone: '+4915123456789',
        send_trigger: 'date',
        send_on: new Date('2026-12-24T09:00:00Z'),
      },
    });
    expect(store.problems).toEqual([]);
  });

  it('posts no message properties when the box is not ticked, or ticked and unticked again', async () => {
    const { page, store } = await visit('dawn-product-page', { videoProduct: null });
    await fillMessage(page, { email: 'bob@example.com' });
    await page.getByLabel('Add a video message').uncheck();
    await addedToCart(page);
    expect(store.cartRequests).toEqual([dawnGiftForm()]);
    expect(store.problems).toEqual([]);
  });
});

describe('setup 2: a video message add-on product', () => {
  it('on the product page, adds the add-on with the message and then the gift, both with one new key', async () => {
    const { page, store } = await visit('dawn-product-page', { videoProduct });
    await fillMessage(page, {
      name: 'Bob Example',
      email: 'bob@example.com',
      phone: '+1 415-555-0123',
      trigger: 'Right after I record it',
    });
    await addedToCart(page);

    expect(store.cartRequests).toHaveLength(2);
    const [addOn, gift] = store.cartRequests;
    const giftPairs = gift!.body as Array<[string, string]>;
    const key = propertiesOf(giftPairs)._gift_key;
    expect(key).toMatch(GIFT_KEY);
    expect(addOn).toEqual(
      addOnRequest({
        _video_message: 'yes',
        'Recipient name': 'Bob Example',
        _recipient_email: 'bob@example.com',
        _recipient_phone: '+14155550123',
        _send_trigger: 'now',
        _gift_key: key,
      }),
    );
    expect(gift).toEqual(dawnGiftForm(['properties[_gift_key]', key]));

    // The add-on's line is the video order; the gift's line is not, and only carries the key.
    const order = orderWithLines([
      { id: 11, variantId: 40001, properties: propertiesOf(giftPairs) },
      {
        id: 12,
        variantId: 50001,
        properties: (addOn!.body as { items: [{ properties: Record<string, string> }] }).items[0].properties,
      },
    ]);
    const videoLines = videoLineItems(order, { videoProductIds: [], videoVariantIds: [] });
    expect(videoLines.map((line) => line.id)).toEqual(['12']);
    expect(orderToVideoOrder(order, videoLines[0]!)).toMatchObject({
      ok: true,
      order: { recipient_email: 'bob@example.com', recipient_phone: '+14155550123', send_method: 'email_and_sms' },
    });

    // The next gift gets a key of its own (and its own add-on).
    await page.getByText('Added to cart').evaluate((status) => (status.textContent = ''));
    await addedToCart(page);
    expect(store.cartRequests).toHaveLength(4);
    const secondKey = propertiesOf(store.cartRequests[3]!.body)._gift_key;
    expect(secondKey).toMatch(GIFT_KEY);
    expect(secondKey).not.toBe(key);
    expect(store.cartRequests[2]).toMatchObject({
      path: '/cart/add.js',
      body: { items: [{ properties: { _gift_key: secondKey } }] },
    });
    expect(store.problems).toEqual([]);
  });

  it('adds no gift when the cart refuses the add-on, and says why', async () => {
    const { page, store } = await visit('dawn-product-page', {
      videoProduct,
      answer: (request) =>
        request.path === '/cart/add.js'
          ? {
              status: 422,
              json: { status: 422, message: 'Cart Error', description: 'All 1 Video message are in your cart.' },
            }
          : undefined,
    });
    await fillMessage(page, { email: 'bob@example.com' });
    await addToCart(page);
    await page
      .getByRole('alert')
      .filter({
        hasText:
          'The video message could not be added to your cart. Please try again. All 1 Video message are in your cart.',
      })
      .waitFor();
    expect(store.cartRequests.map((request) => request.path)).toEqual(['/cart/add.js']);
    // The browser logs the refused request itself; nothing else went wrong.
    expect(store.problems).toEqual([expect.stringContaining('422')]);
  });

  it('on the cart page, puts a key on the chosen gift (keeping its properties), adds the add-on and reloads', async () => {
    const { page, store } = await visit('cart-page', {
      videoProduct,
      answer: (request) =>
        request.path === '/cart/change.js'
          ? {
              status: 200,
              json: { items: [{ key: '40002:new', properties: (request.body as { properties: object }).properties }] },
            }
          : undefined,
    });
    await page.getByLabel('Add a video message').check();
    const gift = page.getByLabel('Which gift is the message for?');
    // Only the lines that ship; one that has its message already cannot be chosen.
    expect(
      await gift
        .locator('option')
        .evaluateAll((options) => options.map((o) => [o.textContent, o.hasAttribute('disabled')])),
    ).toEqual([
      ['Moon lamp', false],
      ['Star map "Our </script> night" <small> × 2', false],
      ['Tea set (already has a video message)', true],
    ]);
    await gift.selectOption({ label: 'Star map "Our </script> night" <small> × 2' });
    await fillMessage(page, { name: 'Bob Example', email: 'bob@example.com' });
    await page.getByRole('button', { name: 'Add video message' }).click();
    await expect.poll(() => store.pageLoads()).toBe(2);

    expect(store.cartRequests).toHaveLength(2);
    const [change, addOn] = store.cartRequests;
    const key = (change!.body as { properties: Record<string, string> }).properties._gift_key;
    expect(key).toMatch(GIFT_KEY);
    expect(change).toEqual({
      path: '/cart/change.js',
      body: {
        id: '40002:77b0f3c2a9e1',
        quantity: 2,
        properties: { Engraving: 'For Bob', _gift_wrap: 'yes', _gift_key: key },
      },
    });
    expect(addOn).toEqual(
      addOnRequest({
        _video_message: 'yes',
        'Recipient name': 'Bob Example',
        _recipient_email: 'bob@example.com',
        _send_trigger: 'package',
        _gift_key: key,
      }),
    );
    expect(store.problems).toEqual([]);
  });

  it('on the cart page without an add-on, puts the message on the chosen line itself', async () => {
    const { page, store } = await visit('cart-page', { videoProduct: null });
    await fillMessage(page, { email: 'bob@example.com', trigger: 'On a date', sendOn: TODAY });
    await page.getByRole('button', { name: 'Add video message' }).click();
    await expect.poll(() => store.pageLoads()).toBe(2);
    expect(store.cartRequests).toEqual([
      {
        path: '/cart/change.js',
        body: {
          id: '40001:5a1d0d9e4f0c',
          quantity: 1,
          properties: {
            _video_message: 'yes',
            _recipient_email: 'bob@example.com',
            _send_trigger: 'date',
            'Send on': TODAY,
          },
        },
      },
    ]);
    expect(store.problems).toEqual([]);
  });
});

describe('validation in the browser', () => {
  const invalid: Array<{ what: string; input: MessageInput; field: string; message: string }> = [
    {
      what: 'a bad e-mail',
      input: { email: 'bob@example' },
      field: "Recipient's e-mail",
      message: 'Enter an e-mail address like name@example.com.',
    },
    {
      what: 'a bad phone',
      input: { phone: '0151 2345 6789' },
      field: "Recipient's mobile number",
      message: 'Enter the mobile number with its country code, like +1 555 123 4567.',
    },
    {
      what: 'neither e-mail nor phone',
      input: { name: 'Bob' },
      field: "Recipient's e-mail",
      message: "Enter the recipient's e-mail address or mobile number (or both).",
    },
    {
      what: 'a past date',
      input: { email: 'bob@example.com', trigger: 'On a date', sendOn: '2026-11-30' },
      field: 'Send on',
      message: 'Choose today or a later day.',
    },
    {
      what: 'no date',
      input: { email: 'bob@example.com', trigger: 'On a date' },
      field: 'Send on',
      message: 'Choose the day to send the video.',
    },
  ];

  for (const { what, input, field, message } of invalid) {
    it(`${what} blocks the add-to-cart with a message at the field, and nothing is posted`, async () => {
      const { page, store } = await visit('dawn-product-page', { videoProduct: null });
      await fillMessage(page, input);
      await addToCart(page);

      const errorText = page.getByText(message);
      await errorText.waitFor();
      const invalidField = page.getByLabel(field);
      expect(await invalidField.getAttribute('aria-invalid')).toBe('true');
      // "At the field": the message is one of the field's descriptions, and the focus is there.
      const describedBy = (await invalidField.getAttribute('aria-describedby'))?.split(' ') ?? [];
      expect(describedBy).toContain(await errorText.getAttribute('id'));
      expect(await invalidField.evaluate((element) => element.ownerDocument.activeElement === element)).toBe(true);
      // Announced: the focus lands there, and a screen reader reads the field, "invalid" and the message.
      expect(await announcementOf(page)).toEqual({
        name: expect.stringContaining(field),
        invalid: true,
        description: expect.stringContaining(message),
      });

      // Put right, the same button adds the gift, and that is the only thing that was ever posted:
      // a request from the blocked attempt would have been recorded before it.
      await fillMessage(page, { email: 'bob@example.com', phone: '', trigger: 'On a date', sendOn: TODAY });
      expect(await errorText.isVisible()).toBe(false);
      await addedToCart(page);
      expect(store.cartRequests).toHaveLength(1);
      expect(propertiesOf(store.cartRequests[0]!.body)).toMatchObject({
        _recipient_email: 'bob@example.com',
        'Send on': TODAY,
      });
      expect(store.problems).toEqual([]);
    });
  }

  it('blocks the add-on and the gift in setup 2', async () => {
    const { page, store } = await visit('dawn-product-page', { videoProduct });
    await fillMessage(page, { phone: '+49 12' });
    await addToCart(page);
    await page.getByText('Enter the mobile number with its country code').waitFor();
    await fillMessage(page, { phone: '+49 151 23456789' });
    await addedToCart(page);
    expect(store.cartRequests.map((request) => request.path)).toEqual(['/cart/add.js', '/cart/add']);
    expect(store.problems).toEqual([]);
  });

  it('blocks the cart page button', async () => {
    const { page, store } = await visit('cart-page', { videoProduct });
    await fillMessage(page, { email: 'bob@' });
    await page.getByRole('button', { name: 'Add video message' }).click();
    await page.getByText('Enter an e-mail address like name@example.com.').waitFor();
    await fillMessage(page, { email: 'bob@example.com' });
    await page.getByRole('button', { name: 'Add video message' }).click();
    await expect.poll(() => store.pageLoads()).toBe(2);
    expect(store.cartRequests.map((request) => request.path)).toEqual(['/cart/change.js', '/cart/add.js']);
    expect(store.problems).toEqual([]);
  });
});
