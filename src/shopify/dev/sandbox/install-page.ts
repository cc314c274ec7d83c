import escapeHtml from 'escape-html';
import { sandboxPage, type SandboxAnswer, type SandboxApp } from './http.ts';

const page = (title: string, body: string) => sandboxPage('install page', title, body);
const notFound = (): SandboxAnswer => ({
  status: 404,
  html: page('App not found', '<p>No app with this client id is known here.</p>'),
});

/**
 * The sandbox's stand-in for Shopify's install (grant) page, reached from an install link
 * (`/store/{handle}/oauth/install?client_id=…`). With Shopify-managed installation Shopify itself
 * installs the app, then opens it embedded with a session token: "Install" here does the same, with
 * a session token signed by the development secret. The app's token exchange then installs the shop.
 */
export function installPage(app: SandboxApp | null, handle: string, query: URLSearchParams): SandboxAnswer {
  if (!app || query.get('client_id') !== app.clientId) return notFound();
  const shop = `${handle}.myshopify.com`;
  const scopes = app.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  return {
    status: 200,
    html: page(
      'Install Doorstep',
      `<p><strong>${escapeHtml(shop)}</strong> is asked to install Doorstep. It will be able to:</p>
<ul>${scopes}</ul>
<form method="post"><input type="hidden" name="client_id" value="${escapeHtml(app.clientId)}">
<button type="submit">Install</button></form>`,
    ),
  };
}

/** "Install": Shopify opens the app in the shop's admin; locally, the embedded admin's own URL. */
export async function answerInstall(
  app: SandboxApp | null,
  handle: string,
  form: URLSearchParams,
): Promise<SandboxAnswer> {
  if (!app || form.get('client_id') !== app.clientId) return notFound();
  return { status: 302, location: await app.open(`${handle}.myshopify.com`) };
}
