import { describe, expect, it } from 'vitest';
import { mapTrackingCompany } from '../../src/shopify/orders/carrier-names.ts';
import { orderPayload } from '../../src/shopify/dev/webhook-payloads.ts';
import { parseShopifyJson } from '../../src/shopify/orders/json.ts';
import {
  fulfillmentToShipment,
  giftLineItemIds,
  giftChange,
  giftOf,
  giftQuantities,
  packageLineQuantities,
  lineItemPaidMinorUnits,
  orderToVideoOrder,
  videoLineItems,
} from '../../src/shopify/orders/mapping.ts';
import { currencyDecimals, moneyToCents, moneyToMinorUnits } from '../../src/money.ts';
import {
  isLastOfTheGift,
  isStaleFulfillment,
  isStaleUpdate,
  planPackages,
  type PackageState,
} from '../../src/shopify/orders/packages.ts';
import { shopifyOrder } from '../../src/shopify/orders/payloads.ts';

const noProducts = { videoProductIds: [], videoVariantIds: [] };
const order = (raw: unknown) => shopifyOrder.parse(parseShopifyJson(JSON.stringify(raw)));

describe('mapTrackingCompany', () => {
  for (const [company, carrier] of [
    ['UPS', 'ups'],
    ['ups', 'ups'],
    ['United Parcel Service', 'ups'],
    ['FedEx', 'fedex'],
    ['Fed Ex', 'fedex'],
    ['FEDERAL EXPRESS', 'fedex'],
    ['USPS', 'usps'],
    ['U.S. Postal  Service', 'usps'],
    ['United States Postal Service', 'usps'],
  ] as const) {
    it(`maps "${company}" through the built-in aliases to ${carrier}`, () => {
      expect(mapTrackingCompany(company, 'ANYTHING1', {})).toEqual({ carrier, via: 'built-in alias' });
    });
  }

  it("maps the shop's own carrier name (case-insensitively) after the built-in aliases", () => {
    expect(mapTrackingCompany('royal mail tracked', 'RM123', { 'Royal Mail Tracked': 'usps' })).toEqual({
      carrier: 'usps',
      via: 'shop alias',
    });
    // A built-in alias wins over a shop's attempt to remap it.
    expect(mapTrackingCompany('UPS', 'X', { ups: 'fedex' })).toEqual({ carrier: 'ups', via: 'built-in alias' });
  });

  it("falls back to the tracking number's format", () => {
    expect(mapTrackingCompany('Some Reseller', '1Z879E930346834440', {})).toEqual({
      carrier: 'ups',
      via: 'tracking number',
    });
    expect(mapTrackingCompany(null, '9400111899223817240935', {})).toEqual({ carrier: 'usps', via: 'tracking number' });
  });

  it("does not guess from the number when the store names a carrier that delivers on its own (probe finding: Royal Mail's S10 went to USPS)", () => {
    for (const [company, number] of [
      ['Royal Mail', 'RR123456785GB'],
      ['Deutsche Post', 'LX123456785DE'],
      ['China Post', 'LK123456785CN'],
      ['Canada Post', '123456789012'],
    ] as const)
      expect(mapTrackingCompany(company, number, {})).toEqual({
        carrier: null,
        reason: `Doorstep does not track "${company}" (only UPS, FedEx and USPS)`,
      });
    // Shopify's spellings with a service or country after the name (Shopify probe: Royal Mail Tracked
    // 48 went to USPS, DHL to FedEx, by their numbers' formats).
    for (const [company, number] of [
      ['Royal Mail Tracked 48', 'AB123456785GB'],
      ['RM 48 Medium Parcel', 'AB123456785GB'],
      ['Deutsche Post (DE)', 'LX123456785DE'],
      ['PostNord SE', 'LX123456785SE'],
      ['Japan Post (EN)', 'EJ123456785JP'],
      ['Australia Post eParcel', 'LX123456785AU'],
      ['Parcelforce Worldwide', 'LX123456785GB'],
      ['DHL', '123456789012'],
      ['DHL Sweden', '123456789012'],
      ['DPD Local', '123456789012'],
    ] as const)
      expect(mapTrackingCompany(company, number, {}), company).toMatchObject({ carrier: null });
    // A consolidator whose last mile is USPS is still found by its number.
    expect(mapTrackingCompany('DHL eCommerce Solutions', '9400111899223817240935', {})).toMatchObject({
      carrier: 'usps',
    });
    expect(mapTrackingCompany('DHL eCommerce', '9400111899223817240935', {})).toEqual({
      carrier: 'usps',
      via: 'tracking number',
    });
    // A shop that maps the name itself still decides.
    expect(mapTrackingCompany('Royal Mail', 'RR123456785GB', { 'royal mail': 'usps' })).toMatchObject({
      carrier: 'usps',
    });
  });

  it('gives a reason when nothing matches, or there is no number', () => {
    const canada = mapTrackingCompany('Canada Post', '7023210039414604', {});
    expect(canada.carrier).toBeNull();
    expect(canada).toMatchObject({ reason: expect.stringContaining('Canada Post') });
    expect(mapTrackingCompany('Hermes', null, {})).toMatchObject({
      carrier: null,
      reason: expect.stringContaining('no tracking number'),
    });
  });
});

describe('parseShopifyJson', () => {
  it('keeps 64-bit ids exact, as text', () => {
    const parsed = parseShopifyJson(
      '{"id":9007199254740993,"order_id":12,"quantity":2,"orders_to_redact":[9223372036854775807]}',
    ) as Record<string, unknown>;
    expect(parsed).toEqual({
      id: '9007199254740993',
      order_id: '12',
      quantity: 2,
      orders_to_redact: ['9223372036854775807'],
    });
  });
});

describe('videoLineItems and orderToVideoOrder', () => {
  const raw = orderPayload({
    id: 9007199254740,
    lines: [
      { id: 11, recipientName: 'Bob', recipientEmail: 'bob@example.com', price: '12.50', quantity: 2 },
      { id: 12, marker: false, productId: 555 },
      { id: 13, marker: false, variantId: 777 },
    ],
  });

  it('finds lines marked _video_message, and products or variants the merchant chose', () => {
    expect(videoLineItems(order(raw), noProducts).map((l) => l.id)).toEqual(['11']);
    expect(videoLineItems(order(raw), { videoProductIds: ['555'], videoVariantIds: ['777'] }).map((l) => l.id)).toEqual(
      ['11', '12', '13'],
    );
  });

  it('a line break or control character a shopper typed becomes a space (they cannot fix it; it must not reach logs or SMS)', () => {
    const typed = order(
      orderPayload({
        id: 1,
        lines: [{ id: 21, recipientName: 'Grandpa\r\nJoe\u0007', recipientEmail: 'joe@example.com' }],
      }),
    );
    const mapped = orderToVideoOrder(typed, typed.line_items[0]!);
    expect(mapped).toMatchObject({ ok: true, order: { recipient_name: 'Grandpa Joe' } });
  });

  it('an odd field elsewhere on the line (a list as a property value, a null quantity or price, a discount with only amount_set) does not cost the order its video line (Shopify probe)', () => {
    const odd = orderPayload({ id: 1, lines: [{ id: 31, recipientEmail: 'bob@example.com', price: '10.00' }] });
    const line = odd.line_items[0] as Record<string, unknown>;
    line.properties = [
      ...(line.properties as unknown[]),
      { name: '_uploads', value: ['a.png', 'b.png'] },
      { name: 'x', value: { k: 1 } },
    ];
    line.quantity = null;
    line.discount_allocations = [{ amount_set: { shop_money: { amount: '2.00', currency_code: 'USD' } } }];
    const parsed = order(odd);
    expect(parsed.line_items[0]).toMatchObject({ quantity: 1, discount_allocations: [{ amount: '2.00' }] });
    expect(parsed.line_items[0]!.properties).toContainEqual({ name: '_uploads', value: 'a.png, b.png' });
    expect(orderToVideoOrder(parsed, parsed.line_items[0]!)).toMatchObject({ ok: true, order: { price: 800 } });
    line.price = null;
    expect(order(odd).line_items[0]).toMatchObject({ price: '0' });
  });

  it('makes the customer the sender and reads the recipient from the properties; price = what was paid', () => {
    const parsed = order(raw);
    const mapped = orderToVideoOrder(parsed, parsed.line_items[0]!);
    expect(mapped).toEqual({
      ok: true,
      order: {
        name: 'Ann Sender',
        email: 'ann.sender@example.com',
        recipient_name: 'Bob',
        recipient_email: 'bob@example.com',
        send_trigger: 'package',
        price: 2500,
      },
      awaitingRecipient: null,
    });
  });

  it('reads the send trigger and both recipient channels', () => {
    const parsed = order(
      orderPayload({
        id: 1,
        lines: [{ id: 2, recipientEmail: 'bob@example.com', recipientPhone: '+1 415 555 0100', sendTrigger: 'Now' }],
      }),
    );
    const mapped = orderToVideoOrder(parsed, parsed.line_items[0]!);
    expect(mapped).toMatchObject({
      ok: true,
      order: {
        recipient_name: 'Bob Recipient',
        recipient_phone: '+14155550100',
        send_method: 'email_and_sms',
        send_trigger: 'now',
      },
    });
  });

  it('takes a "Send on" date only for a line sent on a date (send_on is null when nothing is scheduled)', () => {
    const mapWith = (sendTrigger: string, timeZone: string | null = null) => {
      const raw = orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@example.com', sendTrigger }] });
      const line = (raw.line_items as Array<{ properties: Array<{ name: string; value: string }> }>)[0]!;
      line.properties.push({ name: 'Send on', value: '2026-12-24' });
      const parsed = order(raw);
      return orderToVideoOrder(parsed, parsed.line_items[0]!, { timeZone });
    };
    expect(mapWith('On a date')).toMatchObject({
      ok: true,
      order: { send_trigger: 'date', send_on: new Date('2026-12-24T09:00:00Z') },
    });
    // 09:00 on the shop's calendar (storefront probe: 09:00 UTC was the 23rd's evening in Honolulu).
    expect(mapWith('On a date', 'Pacific/Honolulu')).toMatchObject({
      order: { send_on: new Date('2026-12-24T19:00:00Z') },
    });
    expect(mapWith('On a date', 'Europe/Paris')).toMatchObject({
      order: { send_on: new Date('2026-12-24T08:00:00Z') },
    });
    const onDelivery = mapWith('On delivery');
    expect(onDelivery).toMatchObject({ ok: true, order: { send_trigger: 'package' } });
    expect(onDelivery.ok && onDelivery.order).not.toHaveProperty('send_on');
  });

  it('reads a "Send trigger" a theme words its own way, and shortens a long name or title instead of refusing the line (Shopify probe)', () => {
    const mapWith = (sendTrigger: string, extra: Record<string, unknown> = {}) => {
      const raw = {
        ...orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@example.com', sendTrigger }] }),
        ...extra,
      };
      const parsed = order(raw);
      return orderToVideoOrder(parsed, parsed.line_items[0]!);
    };
    for (const [words, trigger] of [
      ['When delivered', 'package'],
      ['When the package arrives', 'package'],
      ['Send right away', 'now'],
      ['Now', 'now'],
    ] as const)
      expect(mapWith(words), words).toMatchObject({ ok: true, order: { send_trigger: trigger } });
    expect(mapWith('Whenever')).toMatchObject({ ok: false, reason: expect.stringMatching(/send trigger/i) });

    const long = mapWith('package', {
      customer: { id: 9, email: 'ann@example.com', first_name: 'A'.repeat(150), last_name: 'B'.repeat(150) },
    });
    expect(long.ok && (long.order.name as string).length).toBe(200);
    expect(long.ok && long.order.name).toMatch(/…$/);

    // A recipient's long name is shortened too, not taken for a missing recipient (the order would wait).
    const longRecipient = mapWith('package', {
      shipping_address: { name: 'R'.repeat(250), address1: '1 Main St', city: 'Springfield', country_code: 'US' },
    });
    expect(longRecipient).toMatchObject({ ok: true, order: { recipient_name: `${'R'.repeat(199)}…` } });
    expect(longRecipient).toMatchObject({ awaitingRecipient: null });
  });

  it('names a refused line by its product, not its line item id, and says a "Send on" it cannot read in words (merchant probe)', () => {
    const raw = orderPayload({
      id: 1,
      lines: [{ id: 5100532493733, recipientEmail: 'bob@example.com', sendTrigger: 'date' }],
    });
    const line = (raw.line_items as Array<{ properties: Array<{ name: string; value: string }> }>)[0]!;
    line.properties.push({ name: 'Send on', value: 'next tuesday' });
    const parsed = order(raw);
    const mapped = orderToVideoOrder(parsed, parsed.line_items[0]!);
    expect(mapped.ok).toBe(false);
    const reason = mapped.ok ? '' : mapped.reason;
    expect(reason).toBe(
      'the video line “Video gift message” cannot become a video order: its "Send on" could not be read as a date (the shopper should write it like 2026-12-24)',
    );
    expect(reason).not.toContain('5100532493733');
  });

  it('reads "Recipient E-mail" and other spellings of e-mail as the recipient e-mail property (Shopify probe)', () => {
    for (const name of [
      'Recipient E-mail',
      'recipient e mail',
      '_Recipient_E-Mail',
      'Recipient Email',
      // A label's colon, a possessive, "address"; French, Spanish and German themes (Shopify probe).
      'Recipient email:',
      'Recipient’s email',
      "Recipient's E-mail Address",
      'E-mail du destinataire',
      'Correo electrónico del destinatario',
      'E-Mail des Empfängers',
    ]) {
      const raw = orderPayload({ id: 1, lines: [{ id: 2 }] });
      const line = (raw.line_items as Array<{ properties: Array<{ name: string; value: string }> }>)[0]!;
      line.properties.push({ name, value: 'bob@example.com' });
      const parsed = order(raw);
      expect(orderToVideoOrder(parsed, parsed.line_items[0]!), name).toMatchObject({
        ok: true,
        order: { recipient_email: 'bob@example.com' },
      });
    }
  });

  it('reads a phone typed the national way in the country of its address (Shopify probe: "(415) 555-0123" was dropped)', () => {
    const withPhone = (phone: string, countryCode: string | null) => {
      const raw = orderPayload({ id: 1, lines: [{ id: 2 }] });
      const line = (raw.line_items as Array<{ properties: Array<{ name: string; value: string }> }>)[0]!;
      line.properties.push({ name: 'Recipient phone', value: phone });
      const parsed = order({ ...raw, shipping_address: { ...raw.shipping_address, country_code: countryCode } });
      return orderToVideoOrder(parsed, parsed.line_items[0]!);
    };
    expect(withPhone('(415) 555-0123', 'US')).toMatchObject({ ok: true, order: { recipient_phone: '+14155550123' } });
    expect(withPhone('06 12 34 56 78', 'FR')).toMatchObject({ ok: true, order: { recipient_phone: '+33612345678' } });
    // Already international: kept, whatever the address's country.
    expect(withPhone('+44 7700 900123', 'US')).toMatchObject({ ok: true, order: { recipient_phone: '+447700900123' } });
    // No country to read it in: not guessed; the order waits for the sender to give a usable one.
    expect(withPhone('(415) 555-0123', null)).toMatchObject({ ok: true, awaitingRecipient: expect.any(String) });
  });

  it('names a missing field once, in the merchant’s words (Shopify probe: "the customer’s name name")', () => {
    const raw = { ...orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@example.com' }] }), customer: null };
    const parsed = order({ ...raw, email: 'ann@example.com', billing_address: null });
    const mapped = orderToVideoOrder({ ...parsed, email: '', contact_email: null }, parsed.line_items[0]!);
    expect(mapped.ok).toBe(false);
    expect(!mapped.ok && mapped.reason).not.toMatch(/name name/);
  });

  it("takes the sender's phone from the customer, else the billing address, and drops one that is not a phone", () => {
    const base = orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@example.com' }] });
    const mapWith = (raw: Record<string, unknown>) => {
      const parsed = order({ ...base, ...raw });
      return orderToVideoOrder(parsed, parsed.line_items[0]!);
    };
    const customer = {
      id: 9,
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Sender',
      phone: '+1 415 555 0111',
    };
    expect(mapWith({ customer })).toMatchObject({ ok: true, order: { sender_phone: '+14155550111' } });
    expect(
      mapWith({
        customer: { ...customer, phone: null },
        billing_address: { name: 'Ann Sender', phone: '+14155550112' },
      }),
    ).toMatchObject({ ok: true, order: { sender_phone: '+14155550112' } });
    const landline = mapWith({ customer: { ...customer, phone: 'call the office' } });
    expect(landline).toMatchObject({
      ok: true,
      awaitingRecipient: null,
      order: { recipient_email: 'bob@example.com' },
    });
    expect(landline.ok && landline.order).not.toHaveProperty('sender_phone');
  });

  it('makes a line without a recipient address an order awaiting one, with a reason', () => {
    const parsed = order(orderPayload({ id: 1, lines: [{ id: 2, recipientName: 'Bob' }] }));
    const mapped = orderToVideoOrder(parsed, parsed.line_items[0]!);
    expect(mapped).toMatchObject({
      ok: true,
      order: { recipient_name: 'Bob' },
      awaitingRecipient: expect.stringContaining('no recipient e-mail or phone'),
    });
    expect(mapped.ok && mapped.order).not.toHaveProperty('recipient_email');
  });

  it('asks the sender again instead of guessing when the recipient address is not valid (the reason shows no value)', () => {
    const parsed = order(
      orderPayload({ id: 1, lines: [{ id: 2, recipientEmail: 'bob@', recipientPhone: '+1 415 555 0100' }] }),
    );
    const mapped = orderToVideoOrder(parsed, parsed.line_items[0]!);
    expect(mapped).toMatchObject({ ok: true, awaitingRecipient: expect.stringContaining('recipient_email') });
    expect(mapped.ok && mapped.awaitingRecipient).not.toContain('bob@');
    expect(mapped.ok && mapped.order).not.toHaveProperty('recipient_phone');
    expect(mapped.ok && mapped.order).not.toHaveProperty('send_method');
  });

  it('names nobody it does not know: no property and no shipping address leaves a placeholder the sender replaces', () => {
    const parsed = order({ ...orderPayload({ id: 1, lines: [{ id: 2 }] }), shipping_address: null });
    expect(orderToVideoOrder(parsed, parsed.line_items[0]!)).toMatchObject({
      ok: true,
      order: { recipient_name: 'your recipient' },
      awaitingRecipient: expect.any(String),
    });
  });

  it('reads the message from the cart attributes when a theme without app blocks left it there', () => {
    const attributes = [
      { name: 'Video message', value: 'yes' },
      { name: 'Recipient name', value: 'Cleo' },
      { name: 'Recipient email', value: 'cleo@example.com' },
    ];
    const parsed = order(orderPayload({ id: 1, lines: [{ id: 2, marker: false }], noteAttributes: attributes }));
    const items = videoLineItems(parsed, noProducts);
    expect(items.map((l) => [l.id, l.requires_shipping])).toEqual([['cart', false]]);
    expect(orderToVideoOrder(parsed, items[0]!)).toMatchObject({
      ok: true,
      order: { recipient_name: 'Cleo', recipient_email: 'cleo@example.com', price: 0 },
      awaitingRecipient: null,
    });
    // A merchant-chosen video product takes its recipient from the cart attributes too.
    const chosen = videoLineItems(parsed, { videoProductIds: ['8000000001'], videoVariantIds: [] });
    expect(chosen.map((l) => l.id)).toEqual(['2']);
    expect(orderToVideoOrder(parsed, chosen[0]!)).toMatchObject({ ok: true, order: { recipient_name: 'Cleo' } });
    // Unmarked attributes are not a message.
    expect(videoLineItems(order(orderPayload({ id: 1, lines: [{ id: 2, marker: false }] })), noProducts)).toEqual([]);
  });

  it('computes cents exactly, after discounts', () => {
    expect(moneyToCents('10.5')).toBe(1050);
    expect(moneyToCents('0.07')).toBe(7);
    expect(moneyToCents('7')).toBe(700);
    expect(moneyToCents('12.345')).toBe(1235);
    expect(() => moneyToCents('abc')).toThrow(RangeError);
    const parsed = order({
      ...raw,
      line_items: [
        {
          ...raw.line_items[0],
          price: '19.99',
          quantity: 3,
          current_quantity: 3,
          discount_allocations: [{ amount: '5.00' }],
        },
      ],
    });
    expect(lineItemPaidMinorUnits(parsed.line_items[0]!, 'USD')).toBe(5497);
  });

  it('prices what is left of the line after an edit or refund, and without the tax a tax-inclusive shop’s price holds (Shopify probe)', () => {
    const edited = order({
      ...raw,
      line_items: [
        {
          ...raw.line_items[0],
          price: '20.00',
          quantity: 2,
          current_quantity: 1,
          discount_allocations: [{ amount: '4.00' }],
        },
      ],
    });
    // 1 × 20.00 − half the 4.00 discount given for both.
    expect(lineItemPaidMinorUnits(edited.line_items[0]!, 'USD')).toBe(1800);
    const taxed = order({
      ...raw,
      taxes_included: true,
      line_items: [
        {
          ...raw.line_items[0],
          price: '22.00',
          quantity: 1,
          current_quantity: 1,
          tax_lines: [{ price: '1.50' }, { price_set: { shop_money: { amount: '0.50', currency_code: 'EUR' } } }],
        },
      ],
    });
    expect(orderToVideoOrder(taxed, taxed.line_items[0]!)).toMatchObject({ ok: true, order: { price: 2000 } });
    // The same line in a shop whose prices do not include tax: the tax is on top, the price is the price.
    const untaxed = order({ ...raw, taxes_included: false, line_items: taxed.line_items });
    expect(orderToVideoOrder(untaxed, untaxed.line_items[0]!)).toMatchObject({ ok: true, order: { price: 2200 } });
  });

  it("keeps a price in its currency's minor units: yen have none, dinars have three (probe finding: ¥1,500 became 150000)", () => {
    expect(moneyToMinorUnits('1500', currencyDecimals('JPY'))).toBe(1500);
    expect(moneyToMinorUnits('1500.00', currencyDecimals('JPY'))).toBe(1500);
    expect(moneyToMinorUnits('1.250', currencyDecimals('KWD'))).toBe(1250);
    expect(moneyToMinorUnits('20.00', currencyDecimals('EUR'))).toBe(2000);
    expect(currencyDecimals('NOT-A-CODE')).toBe(2);
    // ISO 4217, not the runtime's CLDR (which gives HUF and IDR no decimals, and IQD none).
    expect(['HUF', 'IDR', 'IQD'].map(currencyDecimals)).toEqual([2, 2, 3]);
    const line = (price: string) =>
      order({ ...raw, line_items: [{ ...raw.line_items[0], price, quantity: 1, current_quantity: 1 }] });
    expect(lineItemPaidMinorUnits(line('1500').line_items[0]!, 'JPY')).toBe(1500);
    expect(lineItemPaidMinorUnits(line('1.250').line_items[0]!, 'KWD')).toBe(1250);
    const yen = order({
      ...raw,
      currency: 'JPY',
      line_items: [{ ...raw.line_items[0], price: '1500', quantity: 1, current_quantity: 1 }],
    });
    expect(orderToVideoOrder(yen, yen.line_items[0]!)).toMatchObject({ ok: true, order: { price: 1500 } });
  });

  it('gives a Shopify test order no price, so its video is never billed (probe finding: it was charged)', () => {
    const test = order({ ...raw, test: true });
    const mapped = orderToVideoOrder(test, test.line_items[0]!);
    expect(mapped.ok && mapped.order.price).toBeUndefined();
    const real = order({ ...raw, test: false });
    expect(orderToVideoOrder(real, real.line_items[0]!)).toMatchObject({
      ok: true,
      order: { price: expect.any(Number) },
    });
  });
});

describe('giftLineItemIds (which packages a video waits for)', () => {
  const parsed = order(
    orderPayload({
      id: 1,
      lines: [
        { id: 10, marker: false, title: 'Candle', giftKey: 'k1' },
        { id: 11, marker: false, title: 'Mug' },
        { id: 12, recipientEmail: 'bob@example.com', requiresShipping: false, giftKey: 'k1' },
        { id: 13, marker: false, title: 'Gift card', requiresShipping: false },
      ],
    }),
  );
  const video = parsed.line_items[2]!;

  it('a video line that ships is its own gift', () => {
    expect(giftLineItemIds(parsed, parsed.line_items[0]!, 'all_shipped_items')).toEqual(['10']);
  });
  it('a non-shipping add-on waits for every shipped item by default', () => {
    expect(giftLineItemIds(parsed, video, 'all_shipped_items')).toEqual(['10', '11']);
  });
  it('or, when the shop chooses, for the item the block was added to (same gift key)', () => {
    expect(giftLineItemIds(parsed, video, 'gift_item')).toEqual(['10']);
    const unkeyed = order(
      orderPayload({
        id: 1,
        lines: [
          { id: 10, marker: false },
          { id: 12, requiresShipping: false },
        ],
      }),
    );
    expect(giftLineItemIds(unkeyed, unkeyed.line_items[1]!, 'gift_item')).toEqual(['10']);
  });
  it('leaves out a shipped item an order edit removed (current_quantity 0)', () => {
    const edited = order(
      orderPayload({
        id: 1,
        lines: [
          { id: 10, marker: false, title: 'Candle' },
          { id: 11, marker: false, title: 'Mug', currentQuantity: 0 },
          { id: 12, requiresShipping: false },
        ],
      }),
    );
    expect(giftLineItemIds(edited, edited.line_items[2]!, 'all_shipped_items')).toEqual(['10']);
  });
  it('is empty when nothing ships, and the plan says so on the timeline', () => {
    const digital = order(orderPayload({ id: 1, lines: [{ id: 12, requiresShipping: false }] }));
    expect(giftLineItemIds(digital, digital.line_items[0]!, 'all_shipped_items')).toEqual([]);
    expect(planPackages([], [], { fallbackDelivered: true, carrierAliases: {} })).toMatchObject({
      deliver: null,
      notice: { type: 'delivery.blocked', reason: expect.stringContaining('no item that ships') },
    });
  });
});

describe('fulfillmentToShipment', () => {
  it('is null for a fulfillment without gift items', () => {
    expect(
      fulfillmentToShipment(
        { line_item_ids: ['1'], tracking_company: 'UPS', tracking_numbers: ['1Z879E930346834440'] },
        ['2'],
      ),
    ).toBeNull();
  });
  it('tracks the last number of a gift fulfillment, normalized', () => {
    expect(
      fulfillmentToShipment(
        { line_item_ids: ['2'], tracking_company: 'ups', tracking_numbers: ['1Z 111', '1z879e930346834440'] },
        ['2'],
      ),
    ).toEqual({ kind: 'tracked', carrier: 'ups', trackingNumber: '1Z879E930346834440', via: 'built-in alias' });
  });
  it('is untracked (with a reason) for an unsupported carrier', () => {
    expect(
      fulfillmentToShipment({ line_item_ids: ['2'], tracking_company: 'Canada Post', tracking_numbers: ['CP1'] }, [
        '2',
      ]),
    ).toMatchObject({ kind: 'untracked' });
  });
});

describe('planPackages (the multi-package rule)', () => {
  const pkg = (id: string, over: Partial<PackageState> = {}): PackageState => ({
    fulfillmentId: id,
    status: 'success',
    lineItemIds: ['L1'],
    lineQuantities: null,
    trackingCompany: 'UPS',
    trackingNumbers: [`1Z00000000000000${id}`],
    createdAt: new Date(`2026-12-0${id}T10:00:00Z`),
    deliveredAt: null,
    carrierDeliveredNumbers: [],
    ...over,
  });
  const on = { fallbackDelivered: true, carrierAliases: {} };

  it('tracks the newest gift package still out', () => {
    expect(planPackages([pkg('1'), pkg('2')], ['L1'], on).shipment).toEqual({
      kind: 'set',
      carrier: 'ups',
      trackingNumber: '1Z000000000000002',
    });
  });
  it('moves tracking to the package still out when its carrier delivered the newer one; the last box delivers, not Shopify', () => {
    const newerArrived = pkg('2', { carrierDeliveredNumbers: ['1Z000000000000002'] });
    expect(planPackages([pkg('1'), newerArrived], ['L1'], on).shipment).toEqual({
      kind: 'set',
      carrier: 'ups',
      trackingNumber: '1Z000000000000001',
    });
    expect(isLastOfTheGift([pkg('1'), pkg('2')], ['L1'], {}, '1Z000000000000002')).toBe(false);
    expect(isLastOfTheGift([pkg('1'), newerArrived], ['L1'], {}, '1Z000000000000001')).toBe(true);
    // Every box arrived by its carrier: the carrier's delivery of the last one delivers the order.
    const both = [pkg('1', { carrierDeliveredNumbers: ['1Z000000000000001'] }), newerArrived];
    expect(planPackages(both, ['L1'], on)).toEqual({ shipment: { kind: 'keep' }, deliver: null, notice: null });
    // One arrived by its carrier, the other by Shopify's word: Shopify's delivers, at its time.
    const shopifyToo = [pkg('1', { deliveredAt: new Date('2026-12-06T00:00:00Z') }), newerArrived];
    expect(planPackages(shopifyToo, ['L1'], on).deliver).toEqual({
      at: new Date('2026-12-06T00:00:00Z'),
      fulfillmentIds: ['1', '2'],
    });
  });
  it('a package of several boxes waits for each: the next number is one still on its way', () => {
    const boxes = pkg('1', { trackingNumbers: ['1ZAAAA', '1ZBBBB'], carrierDeliveredNumbers: ['1ZBBBB'] });
    expect(planPackages([boxes], ['L1'], on).shipment).toEqual({
      kind: 'set',
      carrier: 'ups',
      trackingNumber: '1ZAAAA',
    });
    expect(isLastOfTheGift([pkg('1', { trackingNumbers: ['1ZAAAA', '1ZBBBB'] })], ['L1'], {}, '1ZBBBB')).toBe(false);
    expect(isLastOfTheGift([boxes], ['L1'], {}, '1ZAAAA')).toBe(true);
    // A number no gift package carries (set through the API) is the order's only package.
    expect(isLastOfTheGift([pkg('1'), pkg('2')], ['L1'], {}, '1ZELSEWHERE')).toBe(true);
  });
  it('moves tracking to the package still out when Shopify reports one delivered, and says so once', () => {
    const plan = planPackages([pkg('1'), pkg('2', { deliveredAt: new Date('2026-12-05T00:00:00Z') })], ['L1'], on);
    expect(plan).toEqual({
      shipment: { kind: 'set', carrier: 'ups', trackingNumber: '1Z000000000000001' },
      deliver: null,
      // Upgrade probe: the number tracked changed with no word on the timeline.
      notice: {
        type: 'delivery.package_arrived',
        reason: "1 of the gift's 2 packages has arrived, and the video goes when the last one does",
      },
    });
  });
  it('delivers only when every gift package is delivered, at the last delivery', () => {
    const plan = planPackages(
      [
        pkg('1', { deliveredAt: new Date('2026-12-06T00:00:00Z') }),
        pkg('2', { deliveredAt: new Date('2026-12-05T00:00:00Z') }),
        pkg('3', { lineItemIds: ['OTHER'] }),
      ],
      ['L1'],
      on,
    );
    expect(plan.deliver).toEqual({ at: new Date('2026-12-06T00:00:00Z'), fulfillmentIds: ['1', '2'] });
  });
  it("stops tracking a gift package whose fulfillment was cancelled, and says the order waits (probe finding: its number's delivery sent the video)", () => {
    const cancelled = pkg('1', { status: 'cancelled' });
    const plan = planPackages([cancelled], ['L1'], on, {}, cancelled.trackingNumbers[0]!);
    expect(plan).toMatchObject({ shipment: { kind: 'clear' }, deliver: null });
    expect(plan.notice).toEqual({
      type: 'delivery.awaiting_shipment',
      reason: expect.stringContaining("the gift's fulfillment was cancelled in Shopify"),
    });
  });
  it('keeps what the order tracks when only packages of other items were cancelled, or the number is not theirs', () => {
    const keep = { shipment: { kind: 'keep' }, deliver: null, notice: null };
    const other = pkg('1', { status: 'cancelled', lineItemIds: ['OTHER'] });
    expect(planPackages([other], ['L1'], on, {}, other.trackingNumbers[0]!)).toEqual(keep);
    // A number the merchant set through the API after the cancellation stays, and no notice repeats.
    expect(planPackages([pkg('1', { status: 'cancelled' })], ['L1'], on, {}, '1Z999AA10123456784')).toEqual(keep);
    expect(planPackages([pkg('1', { status: 'cancelled' })], ['L1'], on)).toEqual(keep);
  });
  it('clears carrier tracking when the newest package cannot be tracked, and says why', () => {
    const plan = planPackages(
      [pkg('1'), pkg('2', { trackingCompany: 'Canada Post', trackingNumbers: ['CP1'] })],
      ['L1'],
      on,
    );
    expect(plan.shipment).toEqual({ kind: 'clear' });
    expect(plan.notice?.type).toBe('delivery.via_shopify');
  });
  describe('a gift of several line items, one not shipped yet', () => {
    const candle = pkg('1', { lineItemIds: ['CANDLE'], deliveredAt: new Date('2026-12-05T00:00:00Z') });
    it('is not delivered by the packages that did ship, and says which item it waits for', () => {
      const plan = planPackages([candle], ['CANDLE', 'MUG'], on);
      expect(plan.deliver).toBeNull();
      expect(plan.notice).toEqual({
        type: 'delivery.awaiting_shipment',
        reason: expect.stringContaining("1 of the gift's 2 items has not shipped yet (Shopify line item MUG)"),
      });
    });
    it('clears carrier tracking, so the shipped package cannot send the video before the rest ships', () => {
      const outForDelivery = pkg('1', { lineItemIds: ['CANDLE'] });
      expect(planPackages([outForDelivery], ['CANDLE', 'MUG'], on).shipment).toEqual({ kind: 'clear' });
    });
    it('counts an item as shipped whichever package carries it, and a cancelled package carries nothing', () => {
      const both = pkg('2', { lineItemIds: ['MUG', 'CANDLE'] });
      expect(planPackages([candle, both], ['CANDLE', 'MUG'], on).shipment).toMatchObject({ kind: 'set' });
      const withdrawn = pkg('2', { lineItemIds: ['MUG'], status: 'cancelled' });
      expect(planPackages([candle, withdrawn], ['CANDLE', 'MUG'], on).notice?.type).toBe('delivery.awaiting_shipment');
    });
    it('counts a line shipped only once its whole quantity has: two mugs in two boxes wait for both', () => {
      const firstBox = pkg('2', {
        lineItemIds: ['MUG'],
        lineQuantities: { MUG: 1 },
        deliveredAt: new Date('2026-12-06T00:00:00Z'),
      });
      const plan = planPackages([candle, firstBox], ['CANDLE', 'MUG'], on, { CANDLE: 1, MUG: 2 });
      expect(plan).toMatchObject({ shipment: { kind: 'clear' }, deliver: null });
      expect(plan.notice?.reason).toContain(
        "1 of the gift's 2 items has not shipped yet (Shopify line item MUG with 1 of 2 shipped)",
      );
      // With the titles the link keeps (migration 050), the line is named by its product (Shopify probe).
      const named = planPackages([candle, firstBox], ['CANDLE', 'MUG'], on, { CANDLE: 1, MUG: 2 }, null, {
        MUG: 'Mug',
      });
      expect(named.notice?.reason).toContain("1 of the gift's 2 items has not shipped yet (“Mug” with 1 of 2 shipped)");
      const secondBox = pkg('3', {
        lineItemIds: ['MUG'],
        lineQuantities: { MUG: 1 },
        deliveredAt: new Date('2026-12-08T00:00:00Z'),
      });
      expect(planPackages([candle, firstBox, secondBox], ['CANDLE', 'MUG'], on, { CANDLE: 1, MUG: 2 }).deliver).toEqual(
        {
          at: new Date('2026-12-08T00:00:00Z'),
          fulfillmentIds: ['1', '2', '3'],
        },
      );
    });
    it('a package without quantities (stored before they were kept) carries all of its lines', () => {
      const mugs = pkg('2', { lineItemIds: ['MUG'], deliveredAt: new Date('2026-12-06T00:00:00Z') });
      expect(planPackages([candle, mugs], ['CANDLE', 'MUG'], on, { MUG: 2 }).deliver).not.toBeNull();
    });
    it('once the last item ships and is delivered, delivers at the last delivery', () => {
      const mug = pkg('2', { lineItemIds: ['MUG'], deliveredAt: new Date('2026-12-07T00:00:00Z') });
      expect(planPackages([candle, mug], ['CANDLE', 'MUG'], on).deliver).toEqual({
        at: new Date('2026-12-07T00:00:00Z'),
        fulfillmentIds: ['1', '2'],
      });
    });
  });
  it('with the fallback off, an untrackable package is a visible block, and Shopify never delivers', () => {
    const off = { fallbackDelivered: false, carrierAliases: {} };
    expect(
      planPackages([pkg('1', { trackingCompany: 'Canada Post', trackingNumbers: ['CP1'] })], ['L1'], off).notice?.type,
    ).toBe('delivery.blocked');
    expect(planPackages([pkg('1', { deliveredAt: new Date() })], ['L1'], off).deliver).toBeNull();
  });
});

describe('isStaleUpdate', () => {
  it('treats older and equal updated_at as stale, newer as fresh, and anything as fresh when nothing is stored', () => {
    const stored = new Date('2026-12-02T10:00:00Z');
    expect(isStaleUpdate(stored, new Date('2026-12-02T09:00:00Z'))).toBe(true);
    expect(isStaleUpdate(stored, new Date('2026-12-02T10:00:00Z'))).toBe(true);
    expect(isStaleUpdate(stored, new Date('2026-12-02T10:00:01Z'))).toBe(false);
    expect(isStaleUpdate(null, stored)).toBe(false);
  });
});

describe('isStaleFulfillment', () => {
  const at = new Date('2026-12-02T10:00:00Z');
  const stored = { updatedAt: at, trackingNumbers: [] as string[], status: 'success' };
  it('takes a same-second version that adds numbers or cancels, and not one that says less or the same', () => {
    expect(isStaleFulfillment(stored, { updatedAt: at, trackingNumbers: ['1Z1'], status: 'success' })).toBe(false);
    expect(isStaleFulfillment(stored, { updatedAt: at, trackingNumbers: [], status: 'cancelled' })).toBe(false);
    expect(isStaleFulfillment(stored, { updatedAt: at, trackingNumbers: [], status: 'success' })).toBe(true);
    const withNumber = { ...stored, trackingNumbers: ['1Z1'] };
    expect(isStaleFulfillment(withNumber, { updatedAt: at, trackingNumbers: [], status: 'success' })).toBe(true);
    expect(
      isStaleFulfillment(withNumber, {
        updatedAt: new Date('2026-12-02T09:59:59Z'),
        trackingNumbers: ['1Z2'],
        status: 'success',
      }),
    ).toBe(true);
    expect(
      isStaleFulfillment(withNumber, {
        updatedAt: new Date('2026-12-02T10:00:01Z'),
        trackingNumbers: [],
        status: 'success',
      }),
    ).toBe(false);
  });
});

describe('order edits (current_quantity)', () => {
  const settings = { videoProductIds: [], videoVariantIds: [] };
  const edited = order(
    orderPayload({
      id: 1,
      lines: [
        { id: 10, marker: false, title: 'Candle', quantity: 2, currentQuantity: 1 },
        { id: 11, marker: false, title: 'Mug', currentQuantity: 0 },
        { id: 12, recipientEmail: 'bob@example.com', requiresShipping: false },
        { id: 13, recipientEmail: 'cy@example.com', currentQuantity: 0 },
      ],
    }),
  );

  it('a video line an edit removed becomes no video order', () => {
    expect(videoLineItems(edited, settings).map((line) => line.id)).toEqual(['12']);
  });

  it('a removed video line does not turn the cart attributes into a video message instead', () => {
    const onlyRemoved = order({
      ...orderPayload({ id: 1, lines: [{ id: 13, recipientEmail: 'cy@example.com', currentQuantity: 0 }] }),
      note_attributes: [{ name: 'Video message', value: 'true' }],
    });
    expect(videoLineItems(onlyRemoved, settings)).toEqual([]);
  });

  it('a gift is what is left of the order’s shipped items: removed lines out, reduced ones lowered', () => {
    expect(giftOf(edited, edited.line_items[2]!, 'all_shipped_items')).toEqual({
      lineItemIds: ['10'],
      quantities: { '10': 1 },
      titles: { '10': 'Candle' },
    });
  });

  it('tells what an edit changed: lines removed, added (a swap is both), quantities moved either way', () => {
    const stored = { lineItemIds: ['10', '11'], quantities: { '10': 2, '11': 1 } };
    expect(giftChange(stored, { lineItemIds: ['10', '14'], quantities: { '10': 3, '14': 1 } })).toEqual({
      removed: ['11'],
      added: ['14'],
      resized: [{ id: '10', from: 2, to: 3 }],
    });
    expect(giftChange(stored, { lineItemIds: ['11', '10'], quantities: { '10': 2, '11': 1 } })).toBeNull();
  });

  it('compares a gift stored without quantities by its lines only', () => {
    expect(
      giftChange({ lineItemIds: ['10'], quantities: null }, { lineItemIds: ['10'], quantities: { '10': 2 } }),
    ).toBeNull();
  });

  it('the quantities a gift needs are what is left of each line; a package’s are what it carries', () => {
    expect(giftQuantities(edited, ['10', '11'])).toEqual({ '10': 1, '11': 0 });
    expect(
      packageLineQuantities({
        line_items: [
          { id: '10', quantity: 1 },
          { id: '11', quantity: 2 },
          { id: '10', quantity: 1 },
          { id: '12', quantity: null },
        ],
      }),
    ).toEqual({ '10': 2, '11': 2 });
  });

  it('reads payloads without current_quantity (API versions before 2024-01) as nothing removed', () => {
    const raw = orderPayload({
      id: 1,
      lines: [
        { id: 11, marker: false },
        { id: 12, requiresShipping: false },
      ],
    });
    const old = order({ ...raw, line_items: raw.line_items.map(({ current_quantity: _left, ...line }) => line) });
    expect(old.line_items.map((line) => line.current_quantity)).toEqual([null, null]);
    expect(giftOf(old, old.line_items[1]!, 'all_shipped_items')).toEqual({
      lineItemIds: ['11'],
      quantities: { '11': 1 },
      titles: { '11': 'Scented candle' },
    });
  });
});
