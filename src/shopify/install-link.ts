/**
 * Where a shop installs Doorstep: Shopify's install page for it (Shopify-managed installation,
 * `https://admin.shopify.com/store/{handle}/oauth/install?client_id=…`), which asks the merchant
 * to grant the scopes of shopify.app.toml and then opens the app embedded. On the development
 * credentials the shop lives in the local sandbox, whose install page does the same
 * (src/shopify/sandbox/install-page.ts).
 */
export function installLink(shop: string, apiKey: string, sandboxUrl: string | null): string {
  const handle = shop.replace(/\.myshopify\.com$/, '');
  const base = (sandboxUrl ?? 'https://admin.shopify.com').replace(/\/+$/, '');
  return `${base}/store/${encodeURIComponent(handle)}/oauth/install?client_id=${encodeURIComponent(apiKey)}`;
}
