import { z } from 'zod';
import { currencyDecimals, moneyToMinorUnits } from '../../money.ts';
import { mapTrackingCompany } from './carrier-names.ts';
import { instantInZone } from '../../i18n/dates.ts';
import { formatTimestamp } from '../../orders/serializer.ts';
import type { CarrierCode } from '../../carriers/carrier-code.ts';
import type { GiftPackages, SendMethod } from '../../vocabulary.ts';
import {
  normalizeTrackingNumber,
  STORABLE_TRACKING_NUMBER,
  STORABLE_TRACKING_NUMBER_RULE,
} from '../../carriers/tracking-number.ts';
import { UNNAMED_RECIPIENT } from '../../orders/recipient.ts';
import {
  CONTROL_CHARACTERS,
  MAX_PRICE_CENTS,
  orderCreateSchema,
  TEXT_LIMITS,
  type OrderCreate,
} from '../../orders/request-schemas.ts';
import { fieldErrors } from '../../validation.ts';
import { readPhoneNumber } from '../../phone-number.ts';
import { shortened } from '../../i18n/shortened.ts';
import type { ShopifyFulfillment, ShopifyLineItem, ShopifyOrder } from './payloads.ts';

/**
 * Line-item properties the storefront block (extensions/video-gift-message) sets on a video gift,
 * documented in docs/shopify.md. Names are matched ignoring case, a leading underscore (Shopify
 * hides `_`-prefixed properties from the shopper's receipt) and `_`/`-` versus space:
 * `Recipient email` = `_recipient_email`. Themes without app blocks may put the same names in cart
 * attributes (`note_attributes`); those fill what a line does not say.
 */
export const PROPERTY = {
  marker: 'video message',
  recipientName: 'recipient name',
  recipientEmail: 'recipient email',
  recipientPhone: 'recipient phone',
  sendTrigger: 'send trigger',
  sendOn: 'send on',
  videoTitle: 'video title',
  /** The same random key on a video add-on line and on the gift line it was added to. */
  giftKey: 'gift key',
} as const;

/** The order fields a video line is made of, as the merchant knows them in the Shopify order. */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  name: 'the customer’s name',
  email: 'the customer’s e-mail address',
  send_trigger: `the "${PROPERTY.sendTrigger}" property`,
  send_on: `the "${PROPERTY.sendOn}" property`,
  video_title: `the "${PROPERTY.videoTitle}" property`,
  price: 'the line’s price',
};

export interface VideoProductSettings {
  /** Products / variants the merchant chose: every line of them is a video message. */
  videoProductIds: readonly string[];
  videoVariantIds: readonly string[];
}

function normalizePropertyName(name: string): string {
  const words = name
    .trim()
    .replace(/^_+/, '')
    .replace(/[\s_-]+/g, ' ')
    .toLowerCase()
    // "E-mail" as many write it ("Recipient E-mail"; a Shopify probe's order waited for a recipient it had).
    .replace(/\be mail\b/g, 'email')
    // A label's colon, a possessive, a trailing "address" or "number" (Shopify probe: "Recipient email:",
    // "Recipient's email", "Recipient Email Address" each left the order waiting for a recipient).
    .replace(/\s*[:：]+$/, '')
    .replace(/['’]s\b/g, '')
    .replace(/\b(email|phone) (address|number)$/, '$1')
    .trim();
  return PROPERTY_TRANSLATIONS[words] ?? words;
}

/** The recipient's fields as French, Spanish and German themes label them (normalised as above). */
const PROPERTY_TRANSLATIONS: Readonly<Record<string, string>> = {
  'email du destinataire': PROPERTY.recipientEmail,
  'courriel du destinataire': PROPERTY.recipientEmail,
  'nom du destinataire': PROPERTY.recipientName,
  'téléphone du destinataire': PROPERTY.recipientPhone,
  'email del destinatario': PROPERTY.recipientEmail,
  'correo del destinatario': PROPERTY.recipientEmail,
  'correo electrónico del destinatario': PROPERTY.recipientEmail,
  'nombre del destinatario': PROPERTY.recipientName,
  'teléfono del destinatario': PROPERTY.recipientPhone,
  'email des empfängers': PROPERTY.recipientEmail,
  'empfänger email': PROPERTY.recipientEmail,
  'name des empfängers': PROPERTY.recipientName,
  'empfänger name': PROPERTY.recipientName,
  'telefon des empfängers': PROPERTY.recipientPhone,
  'empfänger telefon': PROPERTY.recipientPhone,
};

const CONTROL_CHARACTERS_ALL = new RegExp(CONTROL_CHARACTERS.source, 'g');

/**
 * What a shopper typed reaches names, titles, SMS and logs: a line break or other control character
 * becomes a space. (The API refuses them instead; here the shopper is not there to fix the text.)
 */
function oneLine(value: string): string {
  return value
    .replace(CONTROL_CHARACTERS_ALL, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

function propertyMap(pairs: ShopifyLineItem['properties']): Map<string, string> {
  const properties = new Map<string, string>();
  for (const { name, value } of pairs) properties.set(normalizePropertyName(name), oneLine(value));
  return properties;
}

export function lineItemProperties(item: ShopifyLineItem): Map<string, string> {
  return propertyMap(item.properties);
}

/** What the shopper said about a video line: its properties, with the cart attributes filling the gaps. */
export function messageProperties(
  order: Pick<ShopifyOrder, 'note_attributes'>,
  item: ShopifyLineItem,
): Map<string, string> {
  const properties = propertyMap(order.note_attributes);
  for (const [name, value] of lineItemProperties(item))
    if (value !== '' || !properties.has(name)) properties.set(name, value);
  return properties;
}

const FALSE_VALUES = new Set(['', 'false', 'no', '0', 'off']);

function isMarked(properties: Map<string, string>): boolean {
  const marker = properties.get(PROPERTY.marker);
  return marker !== undefined && !FALSE_VALUES.has(marker.toLowerCase());
}

/**
 * The video message a theme without app blocks left in the cart attributes, when no line item is a
 * video message: it stands for a line of its own (id `cart`, nothing paid for it, never shipped).
 */
export const CART_ATTRIBUTES_LINE_ID = 'cart';

/** The order's video line items by a shop's own settings: its video products and variants. */
export function shopVideoLineItems(
  order: Pick<ShopifyOrder, 'line_items' | 'note_attributes'>,
  shop: { video_product_ids: string[]; video_variant_ids: string[] },
): ShopifyLineItem[] {
  return videoLineItems(order, { videoProductIds: shop.video_product_ids, videoVariantIds: shop.video_variant_ids });
}

/**
 * The order's line items that are video messages: marked by `_video_message`, or a product/variant
 * the merchant chose; else, when the cart attributes are marked, one message for the whole order.
 */
export function videoLineItems(
  order: Pick<ShopifyOrder, 'line_items' | 'note_attributes'>,
  settings: VideoProductSettings,
): ShopifyLineItem[] {
  const lines = order.line_items.filter((item) => isVideoLine(item, settings));
  const items = lines.filter((item) => !removedByOrderEdit(item));
  // A video line an edit removed is still the order's video message: no cart-attributes one instead.
  if (lines.length > 0 || !isMarked(propertyMap(order.note_attributes))) return items;
  return [
    {
      id: CART_ATTRIBUTES_LINE_ID,
      product_id: null,
      variant_id: null,
      title: 'Video message (cart attributes)',
      quantity: 1,
      price: '0',
      total_discount: null,
      discount_allocations: null,
      properties: [],
      requires_shipping: false,
      current_quantity: null,
      tax_lines: [],
    },
  ];
}

function isVideoLine(item: ShopifyLineItem, settings: VideoProductSettings): boolean {
  if (isMarked(lineItemProperties(item))) return true;
  if (item.product_id !== null && settings.videoProductIds.includes(item.product_id)) return true;
  return item.variant_id !== null && settings.videoVariantIds.includes(item.variant_id);
}

/** An order edit took the line out of the order: it stays listed, with `current_quantity` 0. */
export function removedByOrderEdit(line: Pick<ShopifyLineItem, 'current_quantity'>): boolean {
  return line.current_quantity === 0;
}

/** A count per Shopify line item id: what a gift needs of each line, or what a package carries. */
export type LineQuantities = Readonly<Record<string, number>>;

/** The quantities of a gift's lines, as the order has them now. */
export function giftQuantities(
  order: Pick<ShopifyOrder, 'line_items'>,
  giftLineItemIds: readonly string[],
): LineQuantities {
  const quantities: Record<string, number> = {};
  for (const line of order.line_items)
    if (giftLineItemIds.includes(line.id)) quantities[line.id] = line.current_quantity ?? line.quantity;
  return quantities;
}

/**
 * How many of each line one package carries. A line whose quantity Shopify did not send is left out:
 * the package rules then count that package as carrying all of it.
 */
export function packageLineQuantities(fulfillment: Pick<ShopifyFulfillment, 'line_items'>): LineQuantities {
  const quantities: Record<string, number> = {};
  const unknown = new Set(fulfillment.line_items.filter((line) => line.quantity === null).map((line) => line.id));
  for (const line of fulfillment.line_items)
    if (!unknown.has(line.id)) quantities[line.id] = (quantities[line.id] ?? 0) + line.quantity!;
  return quantities;
}

/** The gift a video line waits for: its line ids, and how many of each must ship. */
export interface Gift {
  lineItemIds: readonly string[];
  quantities: LineQuantities;
  /** The lines' titles, as the merchant knows them (lineWords). */
  titles: LineTitles;
}

/** A line's title per Shopify line item id. */
export type LineTitles = Readonly<Record<string, string>>;

/** The gift of a video line as this payload has it (after any order edits it tells). */
export function giftOf(order: Pick<ShopifyOrder, 'line_items'>, videoItem: ShopifyLineItem, mode: GiftPackages): Gift {
  const lineItemIds = giftLineItemIds(order, videoItem, mode);
  return { lineItemIds, quantities: giftQuantities(order, lineItemIds), titles: lineTitles(order, lineItemIds) };
}

/** The titles this payload gives lines `ids` (those without one are left out). */
export function lineTitles(order: Pick<ShopifyOrder, 'line_items'>, ids: readonly string[]): LineTitles {
  return Object.fromEntries(
    order.line_items
      .filter((line) => ids.includes(line.id) && line.title?.trim())
      .map((line) => [line.id, shortened(oneLine(line.title!), 80)]),
  );
}

/**
 * A line as the merchant knows it: its product's title in quotes ("“Scented candle”"), or, for a
 * line whose title was not kept, Shopify's line item id (Shopify probe: ids only, in every reason).
 */
export function lineWords(id: string, titles: LineTitles | null): string {
  const title = titles?.[id];
  return title ? `“${title}”` : `Shopify line item ${id}`;
}

/** What an order edit changed in a gift, line by line. */
export interface GiftChange {
  removed: string[];
  added: string[];
  resized: Array<{ id: string; from: number; to: number }>;
}

/**
 * How `next` differs from the stored gift, or null when it does not. A stored gift without
 * quantities (a link made before they were kept) is compared by its lines only.
 */
export function giftChange(
  stored: { lineItemIds: readonly string[]; quantities: LineQuantities | null },
  next: Pick<Gift, 'lineItemIds' | 'quantities'>,
): GiftChange | null {
  const change: GiftChange = {
    removed: stored.lineItemIds.filter((id) => !next.lineItemIds.includes(id)),
    added: next.lineItemIds.filter((id) => !stored.lineItemIds.includes(id)),
    resized: [],
  };
  for (const id of next.lineItemIds) {
    const [from, to] = [stored.quantities?.[id], next.quantities[id]];
    if (from !== undefined && to !== undefined && from !== to) change.resized.push({ id, from, to });
  }
  const changed = change.removed.length + change.added.length + change.resized.length > 0;
  return changed ? change : null;
}

/**
 * The line items whose packages bring the gift a video line belongs to. A video line that ships is
 * its own gift. A video sold as a non-shipping add-on waits for the order's shipped items: all of
 * them (the default), or — when the shop chose `gift_item` — the line the storefront block marked
 * with the same gift key (all shipped items when no line carries it). Empty: nothing ships.
 */
export function giftLineItemIds(
  order: Pick<ShopifyOrder, 'line_items'>,
  videoItem: ShopifyLineItem,
  mode: GiftPackages,
): string[] {
  if (videoItem.requires_shipping) return [videoItem.id];
  const shipped = order.line_items.filter(
    (line) => line.requires_shipping && !removedByOrderEdit(line) && line.id !== videoItem.id,
  );
  if (mode === 'gift_item') {
    const key = lineItemProperties(videoItem).get(PROPERTY.giftKey);
    const marked = key ? shipped.filter((line) => lineItemProperties(line).get(PROPERTY.giftKey) === key) : [];
    if (marked.length > 0) return marked.map((line) => line.id);
  }
  return shipped.map((line) => line.id);
}

/** The order's currency as an upper-case code ("EUR"), or null when Shopify sent none: prices are in its minor units. */
export function orderCurrency(order: Pick<ShopifyOrder, 'currency'>): string | null {
  return order.currency?.trim().toUpperCase().slice(0, 16) || null;
}

/**
 * What the shopper paid for the line, before tax (docs/shopify.md, "Price"): unit price × what is
 * left of the line (`current_quantity`: an order edit or a refund lowers it) minus the line's discounts
 * (`discount_allocations`, else the older `total_discount`) and, where the shop's prices include tax,
 * its `tax_lines` — discounts and taxes in the share of the line that is left. In the minor units of the
 * order's currency (cents; yen for JPY, fils for KWD — "1500" yen was 150000 when every currency had cents).
 */
export function lineItemPaidMinorUnits(
  item: ShopifyLineItem,
  currency: string | null,
  taxesIncluded: boolean = false,
): number {
  const decimals = currencyDecimals(currency);
  const minor = (amount: string) => moneyToMinorUnits(amount, decimals);
  const left = item.current_quantity ?? item.quantity;
  // Discounts and taxes are given for the whole first quantity: the share of what is left.
  const ofWhatIsLeft = (amount: number) =>
    left === item.quantity || item.quantity === 0 ? amount : Math.round((amount * left) / item.quantity);
  const discounts = item.discount_allocations
    ? item.discount_allocations.reduce((sum, allocation) => sum + minor(allocation.amount), 0)
    : item.total_discount
      ? minor(item.total_discount)
      : 0;
  const taxes = taxesIncluded ? item.tax_lines.reduce((sum, line) => sum + minor(line.price), 0) : 0;
  const paid = minor(item.price) * left - ofWhatIsLeft(discounts) - ofWhatIsLeft(taxes);
  return Math.min(MAX_PRICE_CENTS, Math.max(0, paid));
}

/** The price a video line gives its order: none for a test order (no money changed hands). */
export function videoLinePrice(
  order: Pick<ShopifyOrder, 'test' | 'currency' | 'taxes_included'>,
  item: ShopifyLineItem,
): number | null {
  return order.test === true ? null : lineItemPaidMinorUnits(item, orderCurrency(order), order.taxes_included === true);
}

/** The hour of the day a "Send on" date sends at, in the shop's time zone. */
const SEND_ON_HOUR = 9;

/**
 * A "Send on" day as the moment it sends: 09:00 in the shop's time zone, the best guess at the
 * shopper's and recipient's day (storefront probe: 09:00 UTC was the evening before in Honolulu and
 * 01:00 in California); 09:00 UTC when the zone is unknown. A full timestamp is taken as given.
 */
function sendOnInstant(sendOn: string, timeZone: string | null): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(sendOn)) return sendOn;
  const at = (timeZone && instantInZone(sendOn, SEND_ON_HOUR, timeZone)) || instantInZone(sendOn, SEND_ON_HOUR, 'UTC');
  // An impossible day ("2026-02-30") is left as typed, for the order's validation to name.
  return at ? formatTimestamp(at) : sendOn;
}

export type VideoOrderMapping =
  | {
      ok: true;
      order: OrderCreate;
      /** Why the order waits for a recipient (the line came without a usable one), or null. */
      awaitingRecipient: string | null;
    }
  | { ok: false; reason: string; fields: Record<string, string> };

function personName(first: string | null | undefined, last: string | null | undefined): string {
  return oneLine([first, last].filter((part) => part && part.trim()).join(' '));
}

const SEND_TRIGGER_WORDS: Record<string, 'package' | 'date' | 'now'> = {
  package: 'package',
  delivery: 'package',
  'on delivery': 'package',
  date: 'date',
  'on a date': 'date',
  now: 'now',
  immediately: 'now',
};

/**
 * The "Send trigger" property as a theme or app words it: our words, else the sense of theirs ("When
 * delivered", "Send right away", "On a specific date"; a Shopify probe saw "When delivered" refuse the
 * line); anything else is left as it is, for the validator to name.
 */
function sendTriggerOf(text: string): string {
  const words = text.trim().replace(/\s+/g, ' ');
  const known = SEND_TRIGGER_WORDS[words];
  if (known) return known;
  if (/\bdeliver(y|ed|s)?\b|\barriv(al|es|ed)?\b/.test(words)) return 'package';
  if (/\b(now|immediately|right away|straight away|asap)\b/.test(words)) return 'now';
  if (/\bdate\b|\bschedul/.test(words)) return 'date';
  return words;
}

/**
 * A shopper's phone in E.164 where it can be read, a number written nationally read in the country of
 * the address it came with (the shipping address for the recipient, the billing address for the
 * sender). Anything unreadable is kept as typed, for the order's validation to name (and the order to
 * wait for a recipient, never to lose the message). Shopify probe: "(415) 555-0123" was dropped and the
 * order waited for a recipient it had.
 */
function phoneTyped(typed: string, countryCode: string | null | undefined): string {
  const reading = readPhoneNumber(typed, countryCode);
  return reading.ok ? reading.e164 : typed;
}

/**
 * A line as the merchant knows it, for the reasons Home and the timeline show: its product's title,
 * not Shopify's line item id (merchant probe: "line item 5100532493733 cannot become…").
 */
export function videoLineWords(item: Pick<ShopifyLineItem, 'title'>): string {
  const title = item.title?.trim();
  return title ? `the video line “${shortened(title, 80)}”` : 'a video line';
}

/**
 * One video order per video line item (a quantity above 1 is still one video message; its price is
 * the whole line). Sender = the customer; recipient from the line's properties (cart attributes
 * filling gaps), the name falling back to the shipping address (the gift goes there). The result is
 * validated by the same schema as POST /v1/orders, so a Shopify order can never create what the API
 * would refuse — except a missing or unusable recipient: that order is still made, waiting for the
 * sender to supply one, so no video line item is dropped without a trace.
 *
 * A line says nothing about how to send; what it gives decides: one channel is that channel, both
 * follow the shop's default send method (`shops.default_send_method`, a setting in the admin).
 */
export function orderToVideoOrder(
  order: ShopifyOrder,
  item: ShopifyLineItem,
  options: {
    defaultSendMethod?: SendMethod;
    /** The shop's IANA time zone: a "Send on" day is 09:00 there (UTC when unknown). */
    timeZone?: string | null;
  } = {},
): VideoOrderMapping {
  const properties = messageProperties(order, item);
  const customer = order.customer;
  const senderName =
    personName(customer?.first_name, customer?.last_name) ||
    order.billing_address?.name ||
    personName(order.billing_address?.first_name, order.billing_address?.last_name) ||
    order.email ||
    customer?.email ||
    '';
  const senderEmail = order.email || customer?.email || order.contact_email || '';
  // Where the three-day "not watched yet" note can go by SMS (docs/notifications.md).
  const senderPhone = customer?.phone || order.billing_address?.phone || null;
  // Numbers typed nationally are read in the country of the address they came with (phoneTyped).
  const senderCountry = order.billing_address?.country_code ?? order.shipping_address?.country_code;
  const recipientCountry = order.shipping_address?.country_code ?? order.billing_address?.country_code;
  const recipientName =
    properties.get(PROPERTY.recipientName) ||
    order.shipping_address?.name ||
    personName(order.shipping_address?.first_name, order.shipping_address?.last_name) ||
    UNNAMED_RECIPIENT;
  const triggerText = properties.get(PROPERTY.sendTrigger)?.toLowerCase();
  const sendTrigger = triggerText ? sendTriggerOf(triggerText) : 'package';
  const candidate: Record<string, unknown> = {
    // A shopper's long name or title is shortened: the shopper is not there to fix it, and a paid
    // message must not be lost or held over its length (Shopify probe).
    name: shortened(senderName, TEXT_LIMITS.name),
    email: senderEmail,
    recipient_name: shortened(recipientName, TEXT_LIMITS.recipient_name),
    send_trigger: sendTrigger,
  };
  // A Shopify test order took no money, so its video is not billed: it has no price, like the setup
  // guide's test gift (the admin shows "none (not billed)").
  const price = videoLinePrice(order, item);
  if (price !== null) candidate.price = price;
  if (senderPhone) candidate.sender_phone = phoneTyped(senderPhone, senderCountry);
  const recipientEmail = properties.get(PROPERTY.recipientEmail);
  const recipientPhone = properties.get(PROPERTY.recipientPhone);
  if (recipientEmail) candidate.recipient_email = recipientEmail;
  if (recipientPhone) candidate.recipient_phone = phoneTyped(recipientPhone, recipientCountry);
  if (recipientEmail && recipientPhone) candidate.send_method = options.defaultSendMethod ?? 'email_and_sms';
  const sendOn = properties.get(PROPERTY.sendOn);
  // A date only schedules a "date" order (send_on is null when nothing is scheduled); on any other
  // trigger it is left out rather than refusing the line item.
  if (sendOn && sendTrigger === 'date') candidate.send_on = sendOnInstant(sendOn, options.timeZone ?? null);
  const title = properties.get(PROPERTY.videoTitle);
  if (title) candidate.video_title = shortened(title, TEXT_LIMITS.video_title);

  // A recipient the shopper got wrong is not guessed at, and the message is not lost either: the
  // order waits and the sender is asked again. A broken address drops both channels, so the sender
  // confirms how to reach the recipient. The reason names fields, never their values (personal data).
  const unusable: string[] = [];
  let parsed = orderCreateSchema.safeParse(candidate);
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error as z.ZodError);
    // A sender's phone that is not a mobile number in E.164 only loses the note's SMS: the e-mail remains.
    if ('sender_phone' in fields) delete candidate.sender_phone;
    if ('recipient_email' in fields || 'recipient_phone' in fields) {
      for (const field of ['recipient_email', 'recipient_phone'] as const)
        if (field in fields) unusable.push(`a ${field} that is not valid`);
      delete candidate.recipient_email;
      delete candidate.recipient_phone;
      delete candidate.send_method;
    }
    if ('recipient_name' in fields) {
      unusable.push('a recipient_name that is not valid');
      candidate.recipient_name = UNNAMED_RECIPIENT;
    }
    parsed = orderCreateSchema.safeParse(candidate);
  }
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error as z.ZodError);
    // In the merchant's words (the reason is listed on Home): what is wrong in the Shopify order, not
    // our field names (probe finding: "email must be a valid e-mail address" when the order had none).
    const problems = Object.entries(fields).map(([field, message]) =>
      field === 'email' && senderEmail === ''
        ? 'the order has no customer e-mail address to send it from'
        : field === 'send_on'
          ? 'its "Send on" could not be read as a date (the shopper should write it like 2026-12-24)'
          : `${FIELD_WORDS[field] ?? field} ${message.replace(new RegExp(`^${field} `), '')}`,
    );
    return {
      ok: false,
      reason: `${videoLineWords(item)} cannot become a video order: ${problems.join('; ')}`,
      fields,
    };
  }
  if (parsed.data.send_trigger === 'date' && !parsed.data.send_on) {
    return {
      ok: false,
      reason: `${videoLineWords(item)} sends on a date but has no "Send on" property`,
      fields: { send_on: 'is required when send_trigger is date' },
    };
  }
  const reachable = Boolean(parsed.data.recipient_email || parsed.data.recipient_phone);
  return {
    ok: true,
    order: parsed.data,
    awaitingRecipient: reachable
      ? null
      : `${videoLineWords(item)} came with ${
          unusable.length > 0 ? unusable.join(' and ') : 'no recipient e-mail or phone'
        }; the sender is asked for the recipient in the record-link e-mail and on the record page`,
  };
}

export type Shipment =
  | { kind: 'tracked'; carrier: CarrierCode; trackingNumber: string; via: string }
  | { kind: 'untracked'; reason: string };

/** The fulfillment's tracking numbers, newest last (`tracking_numbers` when present, else `tracking_number`). */
export function trackingNumbersOf(
  fulfillment: Pick<ShopifyFulfillment, 'tracking_number' | 'tracking_numbers'>,
): string[] {
  const numbers =
    fulfillment.tracking_numbers.length > 0
      ? fulfillment.tracking_numbers
      : fulfillment.tracking_number
        ? [fulfillment.tracking_number]
        : [];
  return numbers.map((number) => number.trim()).filter((number) => number.length > 0);
}

/**
 * The package a fulfillment gives the video order, or null when it carries none of the gift items.
 * With several tracking numbers on one fulfillment the last one is tracked (Shopify appends them);
 * Shopify's own shipment_status covers the whole fulfillment.
 */
export function fulfillmentToShipment(
  fulfillment: {
    line_item_ids: readonly string[] | null;
    tracking_company: string | null;
    tracking_numbers: readonly string[];
  },
  giftLineItemIds: readonly string[],
  shopAliases: Record<string, string> = {},
): Shipment | null {
  if (!fulfillment.line_item_ids?.some((id) => giftLineItemIds.includes(id))) return null;
  const number = fulfillment.tracking_numbers.at(-1) ?? null;
  const mapped = mapTrackingCompany(fulfillment.tracking_company, number, shopAliases);
  if (mapped.carrier === null) return { kind: 'untracked', reason: mapped.reason };
  if (!number)
    return {
      kind: 'untracked',
      reason: `the ${fulfillment.tracking_company ?? 'carrier'} fulfillment has no tracking number`,
    };
  const trackingNumber = normalizeTrackingNumber(number);
  if (!STORABLE_TRACKING_NUMBER.test(trackingNumber))
    return {
      kind: 'untracked',
      reason: `the tracking number "${number.slice(0, 70)}" is not ${STORABLE_TRACKING_NUMBER_RULE}`,
    };
  return { kind: 'tracked', carrier: mapped.carrier, trackingNumber, via: mapped.via };
}
