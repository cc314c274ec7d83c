import { shopHasOrder, shopifyUnavailable } from '../admin-api.ts';
import type { ShopifyLibrary } from '../library.ts';
import type { ShopRow } from '../shops.ts';
import type { ShopTokens } from '../auth/tokens.ts';

/**
 * What the shop's Admin API says of a Shopify order: it has it (`found`), it does not (`not-found`:
 * another shop's, or none), or there is nothing to ask with (`no-token`: a shop that never gave us a
 * token — registered with `shops add`, a development shop). Throws a retryable error
 * (ServiceUnavailableError) when it cannot be answered now: Shopify unreachable, 5xx or throttled, or
 * a stored token that cannot be used (unreadable, expired without a refresh) until the merchant opens
 * the app again.
 */
export type ShopOrderLookUp = (shop: ShopRow, shopifyOrderId: string) => Promise<'found' | 'not-found' | 'no-token'>;

export function shopOrderLookUp(deps: { library: ShopifyLibrary; tokens: ShopTokens }): ShopOrderLookUp {
  return async (shop, shopifyOrderId) => {
    if (!shop.access_token) return 'no-token';
    const accessToken = await deps.tokens.accessToken(shop.domain);
    try {
      return (await shopHasOrder(deps.library, accessToken, shop.domain, shopifyOrderId)) ? 'found' : 'not-found';
    } catch (error) {
      throw shopifyUnavailable(error, `to look up Shopify order ${shopifyOrderId} in ${shop.domain}`);
    }
  };
}
