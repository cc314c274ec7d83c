import { mintSessionToken } from './session-token-mint.ts';

/**
 * How long the CLI's signed admin URL stays openable. Shopify's own tokens live a minute because
 * the admin mints one per load; a person copies this one from a terminal, so it gets longer. The
 * page then asks App Bridge (the stand-in, locally) for a fresh token on every call.
 */
export const ADMIN_URL_LIFETIME_SECONDS = 15 * 60;

/**
 * The address Shopify would load in its iframe for the shop's embedded admin
 * (`/?embedded=1&shop=…&host=…&id_token=…`), signed with the configured secret, for opening the
 * admin locally (`npm run cli -- shopify admin-url <shop>`).
 */
export async function signedAdminUrl(options: {
  publicUrl: string;
  shop: string;
  apiKey: string;
  apiSecret: string;
  now: Date;
}): Promise<string> {
  const { shop } = options;
  const idToken = await mintSessionToken(
    {
      shop,
      apiKey: options.apiKey,
      issuedAt: Math.floor(options.now.getTime() / 1000),
      lifetimeSeconds: ADMIN_URL_LIFETIME_SECONDS,
    },
    options.apiSecret,
  );
  const query = new URLSearchParams({
    embedded: '1',
    shop,
    // What Shopify passes as `host`: the shop's admin address, base64url.
    host: Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString('base64url'),
    id_token: idToken,
  });
  return `${options.publicUrl.replace(/\/+$/, '')}/?${query}`;
}
