/**
 * Doorstep's design tokens (issue 29): the colours, type scale, spacing, radii and buttons of every
 * page a shopper or a recipient sees, and of the e-mails. One source: the pages' stylesheet
 * (page-style.ts) writes them as CSS custom properties, the e-mails (src/notifications/messages/templates/)
 * as MJML attributes (email-style.ts). The store's brand (accent colour, a font from a safe set)
 * is the only thing a merchant changes; everything else is ours, so every store's pages stay
 * readable and accessible whatever it picks.
 */

/** Fonts every device has: no web-font request on a gift page or in an e-mail. */
export const FONT_STACKS = {
  modern: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  classic: 'Georgia, "Iowan Old Style", "Palatino Linotype", "Book Antiqua", "Times New Roman", serif',
  rounded: 'ui-rounded, "SF Pro Rounded", "Arial Rounded MT Bold", "Trebuchet MS", system-ui, sans-serif',
} as const;

export type BrandFont = keyof typeof FONT_STACKS;
export const BRAND_FONTS = Object.keys(FONT_STACKS) as BrandFont[];

/** A warm gift red: white text on it has a contrast of 6.4:1. */
export const DEFAULT_ACCENT = '#b4232a';
export const DEFAULT_FONT: BrandFont = 'modern';

export const COLORS = {
  /** Text. */
  ink: '#2b2118',
  /** Secondary text: 6.9:1 on paper. */
  inkMuted: '#5e5046',
  /** The page behind the card: warm, like wrapping paper. */
  paper: '#f6f1ea',
  /** Cards. */
  surface: '#ffffff',
  line: '#e4dbd0',
  /** The stage behind a video and its poster. */
  stage: '#1f1712',
  success: '#1e6b34',
  danger: '#b3261e',
  /** Keyboard focus, on any background. */
  focus: '#f5a623',
} as const;

/** The type scale (rem, on the browser's 16 px), from a fine print to the reveal's title. */
export const TYPE = {
  small: '0.875rem',
  body: '1.0625rem',
  lead: '1.25rem',
  h2: '1.375rem',
  h1: 'clamp(1.6rem, 1.2rem + 2.2vw, 2.25rem)',
} as const;

/** Spacing steps (rem). */
export const SPACE = { xs: '0.25rem', sm: '0.5rem', md: '1rem', lg: '1.5rem', xl: '2.5rem' } as const;

export const RADIUS = { sm: '0.5rem', md: '0.875rem', lg: '1.5rem', pill: '999px' } as const;

/** What a store chose: its accent colour (`#rrggbb`) and font, each null for Doorstep's default. */
export interface Brand {
  accentColor: string | null;
  font: BrandFont | null;
}

/** Both cases spelled out rather than an `i` flag: the OpenAPI document carries the pattern, not its flags. */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/**
 * The text colour on the accent: white or ink, whichever contrasts more (WCAG 2 relative
 * luminance). A merchant's pale yellow gets dark text on its buttons, not unreadable white.
 */
export function onAccent(accent: string): string {
  const light = contrast(accent, '#ffffff');
  const dark = contrast(accent, COLORS.ink);
  return light >= dark ? '#ffffff' : COLORS.ink;
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/**
 * The accent as text on the page (links, a heading's rule): the accent itself when it reads on the
 * paper at 4.5:1, else ink. A pale accent still colours buttons; it never makes text unreadable.
 */
export function accentText(accent: string): string {
  return contrast(accent, COLORS.paper) >= 4.5 ? accent : COLORS.ink;
}

/** The store's choices with Doorstep's defaults filled in. */
export function resolvedBrand(brand: Partial<Brand> | undefined): { accent: string; font: string } {
  const accent =
    brand?.accentColor && HEX_COLOR.test(brand.accentColor) ? brand.accentColor.toLowerCase() : DEFAULT_ACCENT;
  return { accent, font: FONT_STACKS[brand?.font ?? DEFAULT_FONT] };
}
