import { createHmac, randomUUID } from 'node:crypto';

/** A Shopify admin session token (the `id_token` App Bridge passes), HS256-signed with `secret`. */
export function sessionToken(
  shop: string,
  apiKey: string,
  secret: string,
  options: { ageSeconds?: number; dest?: string } = {},
): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  // An older token (ageSeconds past its minute) has expired, as a tab left open past it holds.
  const now = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
  const claims = {
    iss: `https://${shop}/admin`,
    dest: options.dest ?? `https://${shop}`,
    aud: apiKey,
    sub: '42',
    exp: now + 60,
    nbf: now - 5,
    iat: now,
    jti: randomUUID(),
    sid: randomUUID(),
  };
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}
