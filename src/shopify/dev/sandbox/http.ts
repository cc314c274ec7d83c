import escapeHtml from 'escape-html';

/** An answer of the sandbox: JSON (Shopify's APIs) or a page (the approval page) or a redirect. */
export interface SandboxAnswer {
  status: number;
  body?: unknown;
  html?: string;
  location?: string;
}

/** A page of the sandbox, saying which of Shopify's pages it stands in for (`charge approval`, …). */
export function sandboxPage(standsInFor: string, title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Shopify sandbox</title></head>
<body><p><em>Shopify sandbox (local development): this page stands in for Shopify's ${escapeHtml(standsInFor)}.</em></p>
<h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The app the sandbox installs (development): its client id, what it asks for, and where Shopify opens it for a shop. */
export interface SandboxApp {
  clientId: string;
  scopes: string[];
  /** The app embedded in the shop's admin, with a fresh session token: the signed local admin URL. */
  open(shop: string): Promise<string>;
}
