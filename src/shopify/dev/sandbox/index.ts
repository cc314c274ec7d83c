import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerApproval, approvalPage } from './approve-page.ts';
import { adminGraphql } from './graphql.ts';
import type { SandboxAnswer, SandboxApp } from './http.ts';
import { accessTokenGrant } from './oauth.ts';
import { signedAdminUrl } from '../../auth/admin-url.ts';
import { answerInstall, installPage } from './install-page.ts';
import { saveThemeEditor, themeEditorPage } from './theme-editor.ts';
import { ShopifySandboxState } from './state.ts';
import { SHOP_HEADER } from '../../library.ts';

export { ShopifySandboxState, type SandboxSubscription, type SandboxUsageRecord } from './state.ts';
export { CAP_EXCEEDED } from './graphql.ts';

/**
 * A local Shopify for development and tests, speaking Shopify's wire format: the OAuth token
 * endpoint (code, token exchange, refresh), the Admin GraphQL calls Doorstep makes (shop name,
 * billing) and a stand-in for the charge approval page. The library's `https://{shop}/admin/…`
 * calls reach it through `routeShopifyRequestsTo`, which names the shop in `SHOP_HEADER`.
 *
 * Mounted at `/sandbox/shopify/` only on the built-in development credentials (src/app.ts); tests
 * run it on a port of its own (test/shopify/fake-shopify.ts).
 */

export class ShopifySandbox extends ShopifySandboxState {
  constructor(
    private readonly credentials: { apiKey: string; apiSecret: string },
    /** Where a browser reaches the sandbox (the approval page's links). */
    public publicUrl: string,
    /**
     * The app its install page installs and its theme editor returns to (development): where it is
     * (SHOPIFY_APP_URL) and the scopes it asks for. Absent in tests that need neither page.
     */
    app?: { url: string; scopes: string[] },
  ) {
    super();
    this.app = app
      ? {
          clientId: credentials.apiKey,
          scopes: app.scopes,
          open: (shop) => signedAdminUrl({ publicUrl: app.url, shop, ...credentials, now: new Date() }),
        }
      : null;
  }

  private readonly app: SandboxApp | null;

  /** Handles one request; `url` is the path and query below the sandbox's mount point. */
  handle(req: IncomingMessage, res: ServerResponse, url: string): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void this.answer(req, url, Buffer.concat(chunks).toString('utf8'))
        .catch((): SandboxAnswer => ({ status: 500, body: { errors: 'Internal error' } }))
        .then((answer) => send(res, answer));
    });
  }

  private async answer(req: IncomingMessage, url: string, raw: string): Promise<SandboxAnswer> {
    const { pathname, searchParams } = new URL(url, 'http://sandbox.invalid');
    const shop = String(req.headers[SHOP_HEADER] ?? '');
    if (req.method === 'POST' && pathname === '/admin/oauth/access_token')
      return accessTokenGrant(this, this.credentials, shop, parseBody(raw, req.headers['content-type']));
    if (req.method === 'POST' && /^\/admin\/api\/[\w-]+\/graphql\.json$/.test(pathname))
      return adminGraphql(
        this,
        shop,
        String(req.headers['x-shopify-access-token'] ?? ''),
        JSON.parse(raw || '{}') as { query?: string; variables?: Record<string, unknown> },
        this.publicUrl,
      );
    const editor = /^\/store\/([a-z0-9][a-z0-9-]*)\/admin\/themes\/current\/editor$/.exec(pathname);
    if (editor && req.method === 'GET') return themeEditorPage(editor[1]!, searchParams);
    if (editor && req.method === 'POST') return saveThemeEditor(this, this.app, editor[1]!, new URLSearchParams(raw));
    const install = /^\/store\/([a-z0-9][a-z0-9-]*)\/oauth\/install$/.exec(pathname);
    if (install && req.method === 'GET') return installPage(this.app, install[1]!, searchParams);
    if (install && req.method === 'POST') return answerInstall(this.app, install[1]!, new URLSearchParams(raw));
    if (req.method === 'GET' && pathname === '/billing/approve') return approvalPage(this, searchParams);
    if (req.method === 'POST' && pathname === '/billing/approve') return answerApproval(this, new URLSearchParams(raw));
    return { status: 404, body: { errors: 'Not Found' } };
  }
}

function parseBody(raw: string, contentType: string | undefined): Record<string, string> {
  if (!raw) return {};
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw) as Record<string, string>;
  } catch {
    return {};
  }
}

function send(res: ServerResponse, answer: SandboxAnswer): void {
  if (answer.location) {
    res.writeHead(answer.status, { Location: answer.location });
    res.end();
  } else if (answer.html !== undefined) {
    res.writeHead(answer.status, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(answer.html);
  } else {
    res.writeHead(answer.status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(answer.body ?? {}));
  }
}
