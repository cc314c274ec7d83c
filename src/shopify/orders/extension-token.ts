import { HttpError } from '../../http/errors.ts';
import type { ShopifyLibrary } from '../library.ts';
import { shopDomain } from '../shops.ts';

/** What a verified UI-extension session token tells us. */
export interface ExtensionSession {
  /** The shop the token was issued for (`dest`), e.g. `my-store.myshopify.com`. */
  shop: string;
  /**
   * The logged-in buyer's numeric customer id (from `sub`, `gid://shopify/Customer/<id>`); null for a
   * guest. Shopify also leaves `sub` out when the app has no access to protected customer data.
   */
  customerId: string | null;
}

const invalidToken = () => new HttpError(401, 'unauthorized', 'The Shopify session token is missing or not valid.');

/**
 * Verifies the session token a checkout or customer-account UI extension sends
 * (`shopify.sessionToken.get()`): HS256 signed with our API secret, `aud` = our API key, `exp` and
 * `nbf` honoured. `@shopify/shopify-api`'s `decodeSessionToken` checks exactly those (with 10 s of
 * clock tolerance) and nothing an extension token lacks: extension tokens have no `iss`, and their
 * `dest` is the bare shop domain ("store.myshopify.com") where the admin's is "https://store…".
 * Its error message quotes the token, so it is never logged.
 */
export async function verifyExtensionSessionToken(
  library: ShopifyLibrary,
  authorization: string,
): Promise<ExtensionSession> {
  const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
  if (!token) throw invalidToken();
  let payload: Record<string, unknown>;
  try {
    payload = { ...(await library.session.decodeSessionToken(token)) };
  } catch {
    throw invalidToken();
  }
  // jose checks `exp` only when present; Shopify always sets it (5 minutes), so a token without one
  // was not made by Shopify for us.
  if (typeof payload.exp !== 'number') throw invalidToken();
  const shop = shopOf(payload.dest);
  const customerId = customerIdOf(payload.sub);
  // A `sub` of another shape is not a customer we could match: refuse rather than guess.
  if (!shop || customerId === undefined) throw invalidToken();
  return { shop, customerId };
}

function shopOf(dest: unknown): string | null {
  if (typeof dest !== 'string') return null;
  let host = dest;
  if (/^https?:\/\//i.test(dest)) {
    try {
      host = new URL(dest).hostname;
    } catch {
      return null;
    }
  }
  const parsed = shopDomain.safeParse(host);
  return parsed.success ? parsed.data : null;
}

/** `gid://shopify/Customer/123` (or a plain `123`) → `123`; absent → null (a guest); any other shape → undefined. */
function customerIdOf(sub: unknown): string | null | undefined {
  if (sub === undefined || sub === null || sub === '') return null;
  if (typeof sub !== 'string') return undefined;
  return /^(?:gid:\/\/shopify\/Customer\/)?(\d{1,20})$/.exec(sub)?.[1];
}
