import { GraphqlClient, Session } from '@shopify/shopify-api';
import type { ShopifyLibrary } from './library.ts';

/**
 * The Admin API calls Doorstep makes. Webhook payloads carry everything the order flow needs; the
 * Admin API names the shop's account at install, and billing (src/billing/) uses `adminGraphql`.
 */

/** The library's GraphQL client for a shop's offline token. */
export function adminGraphql(shopify: ShopifyLibrary, accessToken: string, domain: string): GraphqlClient {
  const session = new Session({ id: `offline_${domain}`, shop: domain, state: '', isOnline: false, accessToken });
  return new shopify.clients.Graphql({ session });
}

export async function fetchShopName(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{ shop: { name: string } }>('query DoorstepShopName { shop { name } }');
  return response.data?.shop.name ?? null;
}
