import { Session } from '@shopify/shopify-api';
import type { ShopifyLibrary } from './library.ts';

/**
 * The Admin API calls Doorstep makes. Webhook payloads carry everything the order flow needs; the
 * Admin API is used only to name the shop's account at install.
 */
export async function fetchShopName(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const session = new Session({ id: `offline_${domain}`, shop: domain, state: '', isOnline: false, accessToken });
  const client = new shopify.clients.Graphql({ session });
  const response = await client.request<{ shop: { name: string } }>('query DoorstepShopName { shop { name } }');
  return response.data?.shop.name ?? null;
}
