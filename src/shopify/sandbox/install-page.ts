import escapeHtml from 'escape-html';
import { signedAdminUrl } from '../admin-url.ts';
import type { SandboxAnswer } from './http.ts';

/** The app the sandbox installs: where Shopify would open it, and what it asks for. */
export interface SandboxApp {
  apiKey: string;
  apiSecret: string;
  /** SHOPIFY_APP_URL: the embedded admin opens at its root. */
  url: string;
  scopes: string[];
}

/**
 * The sandbox's stand-in for Shopify's install (grant) page, reached from an install link
 * (`/store/{handle}/oauth/install?client_id=…`). With Shopify-managed installation Shopify itself
 * installs the app, then opens it embedded with a session token: "Install" here does the same, with
 * a session token signed by the development secret. The app's token exchange then installs the shop.
 */
export function installPage(app: SandboxApp | undefined, handle: string, query: URLSearchParams): SandboxAnswer {
  if (!app || query.get('client_id') !== app.apiKey)
    return { status: 404, html: page('App not found', '<p>No app with this client id is known here.</p>') };
  const shop = `${handle}.myshopify.com`;
  const scopes = app.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  return {
    status: 200,
    html: page(
      'Install Doorstep',
      `<p><strong>${escapeHtml(shop)}</strong> is asked to install Doorstep. It will be able to:</p>
<ul>${scopes}</ul>
<form method="post"><input type="hidden" name="client_id" value="${escapeHtml(app.apiKey)}">
<button type="submit">Install</button></form>`,
    ),
  };
}

/** "Install": Shopify opens the app in the shop's admin; locally, the embedded admin's own URL. */
export async function answerInstall(
  app: SandboxApp | undefined,
  handle: string,
  form: URLSearchParams,
): Promise<SandboxAnswer> {
  if (!app || form.get('client_id') !== app.apiKey)
    return { status: 404, html: page('App not found', '<p>No app with this client id is known here.</p>') };
  const location = await signedAdminUrl({
    publicUrl: app.url,
    shop: `${handle}.myshopify.com`,
    apiKey: app.apiKey,
    apiSecret: app.apiSecret,
    now: new Date(),
  });
  return { status: 302, location };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Shopify sandbox</title></head>
<body><p><em>Shopify sandbox (local development): this page stands in for Shopify's install page.</em></p>
<h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
