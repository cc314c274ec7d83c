/**
 * Pure wording and conversions of the embedded admin (unit-tested in test/shopify/admin-ui-format.test.ts).
 */
import { currencyDecimals } from '../../../money.ts';
import type { DisplayStage, Stage } from '../contract.ts';

/** Integer minor units as money in words a merchant reads: 1234 → "$12.34", 1500 JPY → "¥1,500". */
export function formatMoney(minorUnits: number, currency = 'USD'): string {
  const decimals = currencyDecimals(currency);
  const amount = minorUnits / 10 ** decimals;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
  } catch {
    // A code the browser does not know (Shopify sent it; the page must still render).
    return `${amount.toFixed(decimals)} ${currency}`;
  }
}

/** 5400 → "1 h 30 min"; under a minute → "less than a minute"; null → "—" (nothing measured yet). */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return 'less than a minute';
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${minutes} min`;
}

/**
 * An API timestamp (UTC) as a date and time in the shop's time zone, as the Shopify admin writes its
 * own: "Nov 27, 2026, 12:04 PM EST". The zone is named, so a merchant travelling is not misled.
 */
export function formatTime(at: string | null, timeZone: string): string {
  if (!at) return '—';
  return new Date(at).toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });
}

export type BadgeTone = 'info' | 'success' | 'warning' | 'critical' | 'attention' | undefined;

/** The colour of a stage's badge: done is green, waiting on someone is yellow, trouble is red. */
export function stageTone(stage: DisplayStage): BadgeTone {
  switch (stage) {
    case 'scheduled':
      return 'info';
    case 'cancelled':
      return undefined;
    case 'awaiting_video':
    case 'needs_recipient':
      return 'attention';
    case 'tracking':
    case 'waiting_on_shopify':
      return 'info';
    case 'delivered':
      return undefined;
    case 'sent':
    case 'viewed':
      return 'success';
    case 'needs_attention':
      return 'critical';
  }
}

/**
 * What a screen reader says before a stage's badge, in place of its colour's name: Polaris says the
 * tone ("Attention Awaiting video"), which told a merchant an order waiting on the shopper needed
 * them while the "Needs attention" tab was empty (merchant probe).
 */
export function stageToneLabel(stage: DisplayStage): string {
  switch (stage) {
    case 'awaiting_video':
    case 'needs_recipient':
      return 'Waiting on the shopper:';
    case 'needs_attention':
      return 'Needs you:';
    case 'sent':
    case 'viewed':
      return 'Done:';
    case 'cancelled':
      return 'Stopped:';
    case 'scheduled':
    case 'tracking':
    case 'waiting_on_shopify':
    case 'delivered':
      return 'In progress:';
  }
}

/** The words on each stage's filter tab. */
export const STAGE_TAB_LABELS: Record<Stage, string> = {
  awaiting_video: 'Awaiting video',
  needs_recipient: 'Needs recipient',
  tracking: 'On its way',
  waiting_on_shopify: 'Waiting on Shopify',
  delivered: 'Delivered',
  sent: 'Sent',
  viewed: 'Viewed',
  needs_attention: 'Needs attention',
};

/** At most `max` characters, cut at a word with "…" when longer. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

/** `gid://shopify/Product/123` → `"123"`; the settings store Shopify's numeric ids. */
export function numericShopifyId(gid: string): string {
  const match = /^gid:\/\/shopify\/[A-Za-z]+\/(\d+)(?:\?.*)?$/.exec(gid);
  if (!match) throw new Error(`Not a Shopify id: ${gid}`);
  return match[1]!;
}

export interface PickedProduct {
  id: string;
  title?: string;
  /** How many variants the product has, when the picker says (App Bridge's `totalVariants`). */
  totalVariants?: number;
  variants?: Array<{ id?: string; title?: string } | undefined>;
}

/**
 * What the resource picker returned as the settings' ids: a product picked whole is a video
 * product (all its variants, including ones added later); a product of which only some variants
 * were picked contributes those variants only.
 */
export function videoIdsFromPicker(selection: PickedProduct[]): { productIds: string[]; variantIds: string[] } {
  const productIds: string[] = [];
  const variantIds: string[] = [];
  for (const product of selection) {
    const variants = (product.variants ?? []).flatMap((variant) => (variant?.id ? [variant.id] : []));
    const partial =
      product.totalVariants !== undefined && variants.length > 0 && variants.length < product.totalVariants;
    if (partial) variantIds.push(...variants.map(numericShopifyId));
    else productIds.push(numericShopifyId(product.id));
  }
  return { productIds: [...new Set(productIds)], variantIds: [...new Set(variantIds)] };
}

/** The path of a logo Doorstep serves (src/accounts/logo.ts `logoPath`), or null for any other address. */
export function uploadedLogoPath(logoUrl: string): string | null {
  try {
    const { pathname } = new URL(logoUrl);
    return /^\/brand\/[^/]+\/[0-9a-f]{64}\.png$/.test(pathname) ? pathname : null;
  } catch {
    return null;
  }
}

/** A billing month as the merchant says it: "2026-12" → "December 2026" (storefront probe: raw YYYY-MM). */
export function formatMonth(month: string): string {
  const start = new Date(`${month}-01T00:00:00Z`);
  if (Number.isNaN(start.getTime())) return month;
  return start.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}
