import { DEFAULT_ACCENT, onAccent, resolvedBrand, type Brand } from './tokens.ts';

/**
 * The e-mails in the store's brand (issue 29). MJML compiles each template once, at start, with
 * Doorstep's own tokens (src/notifications/messages/templates/partials/head.mjml); the store's accent and
 * font are then put in place of those tokens' values in the compiled HTML, so no store's mail is
 * compiled apart and the strict MJML check still holds. The tokens in the MJML are chosen to be
 * unique marks in its output:
 * - the accent, DEFAULT_ACCENT, for buttons and the play button;
 * - the text on the accent, ON_ACCENT_MARK (white but for its last digit, so no other white moves);
 * - the font stack, EMAIL_FONT_STACKS.modern, as written in head.mjml.
 */
export const ON_ACCENT_MARK = '#fffffe';

/** Fonts every mail client has, written without quotes (MJML copies them into style attributes). */
export const EMAIL_FONT_STACKS = {
  modern: '-apple-system, BlinkMacSystemFont, Segoe UI, Roboto, Helvetica, Arial, sans-serif',
  classic: 'Georgia, Times New Roman, Times, serif',
  rounded: 'Trebuchet MS, Arial Rounded MT Bold, Helvetica, Arial, sans-serif',
} as const;

/** The compiled e-mail, its accent and font made the store's. */
export function brandEmailHtml(html: string, brand: Partial<Brand> | undefined): string {
  const { accent } = resolvedBrand(brand);
  const font = EMAIL_FONT_STACKS[brand?.font ?? 'modern'];
  return html
    .replaceAll(new RegExp(DEFAULT_ACCENT, 'gi'), accent)
    .replaceAll(new RegExp(ON_ACCENT_MARK, 'gi'), onAccent(accent))
    .replaceAll(EMAIL_FONT_STACKS.modern, font);
}
