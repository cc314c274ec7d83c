import type { ShopifyConfig } from '../config.ts';

/**
 * Where the development sandbox (src/shopify/dev/sandbox/) is, as a browser reaches it: src/app.ts mounts
 * it there on the built-in development credentials, where it stands in for Shopify's own pages.
 */
export function sandboxUrl(config: Pick<ShopifyConfig, 'appUrl'>): string {
  return `${config.appUrl}/sandbox/shopify`;
}

/**
 * The Shopify pages Doorstep sends a merchant to, for one shop — Shopify's own, or on the development
 * credentials the sandbox's stand-ins (the shop lives there):
 * - `install`: the install page (Shopify-managed installation,
 *   `https://admin.shopify.com/store/{handle}/oauth/install?client_id=…`), which asks the merchant to
 *   grant the scopes of shopify.app.toml and then opens the app embedded;
 * - `admin`: the shop's admin (`https://{shop}/admin`), below which the theme editor is.
 */
export function shopLinks(
  config: Pick<ShopifyConfig, 'appUrl' | 'apiKey' | 'development'>,
  domain: string,
): { install: string; admin: string } {
  const handle = encodeURIComponent(domain.replace(/\.myshopify\.com$/, ''));
  const sandboxStore = config.development ? `${sandboxUrl(config)}/store/${handle}` : null;
  return {
    install: `${sandboxStore ?? `https://admin.shopify.com/store/${handle}`}/oauth/install?client_id=${encodeURIComponent(config.apiKey)}`,
    admin: sandboxStore ? `${sandboxStore}/admin` : `https://${domain}/admin`,
  };
}
