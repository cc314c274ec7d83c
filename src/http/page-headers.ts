/**
 * The response headers of every page we render ourselves (the record and watch pages, the API
 * reference): scripts and styles only by this response's nonce, nothing from another origin unless
 * a directive names it, never framed, never cached, no referrer.
 */
export function pageHeaders(
  nonce: string,
  allow: {
    /** Extra `connect-src` sources beside 'self'. */
    connect?: string[];
    /** `media-src` sources; absent = no media. */
    media?: string[];
    /** Extra `img-src` sources beside 'self' and data: (the store's logo, which lives on the store's CDN). */
    img?: string[];
    /** Where the page's forms may go; absent = nowhere (the pages post with scripts, not forms). */
    formAction?: string[];
  } = {},
): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      ...(allow.media ? [`media-src ${allow.media.join(' ')}`] : []),
      ['connect-src', "'self'", ...(allow.connect ?? [])].join(' '),
      ['img-src', "'self'", 'data:', ...(allow.img ?? [])].join(' '),
      "base-uri 'none'",
      `form-action ${allow.formAction?.join(' ') ?? "'none'"}`,
      "object-src 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
}
