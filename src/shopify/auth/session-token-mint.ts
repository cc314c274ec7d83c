/**
 * Mints a Shopify admin session token (the `id_token` App Bridge hands an embedded app): a JWT,
 * HS256 with the app's secret, audience = the app's key, `dest` = the shop. Shopify's format:
 * https://shopify.dev/docs/apps/build/authentication-authorization/session-tokens
 *
 * Only WebCrypto, so one implementation serves both the App Bridge stand-in in the browser
 * (admin/ui/app-bridge-standin.ts) and the CLI's signed local admin URL (Node). It never runs
 * inside the server's request handling: the server only verifies tokens.
 */
export interface SessionTokenClaims {
  shop: string;
  apiKey: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Seconds the token is valid (Shopify's last one minute). */
  lifetimeSeconds?: number;
  /** The staff member's id (`sub`); any number works for our verification. */
  userId?: string;
}

export async function mintSessionToken(claims: SessionTokenClaims, secret: string): Promise<string> {
  const { shop, apiKey, issuedAt } = claims;
  const payload = {
    iss: `https://${shop}/admin`,
    dest: `https://${shop}`,
    aud: apiKey,
    sub: claims.userId ?? '1',
    exp: issuedAt + (claims.lifetimeSeconds ?? 60),
    // Shopify's own tokens allow a little clock skew the same way.
    nbf: issuedAt - 5,
    iat: issuedAt,
    jti: crypto.randomUUID(),
    sid: crypto.randomUUID(),
  };
  const encoder = new TextEncoder();
  const unsigned = `${base64Url(encoder.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' })))}.${base64Url(
    encoder.encode(JSON.stringify(payload)),
  )}`;
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(unsigned)));
  return `${unsigned}.${base64Url(signature)}`;
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
