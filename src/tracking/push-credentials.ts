import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The credentials a carrier uses to call our push route. UPS Track Alert v2
 * (ups-track-alert.openapi.yaml, `webhooks.TrackingEvent`, security `clientOauth2`): the webhook
 * credentials registered with UPS are a client id and secret for OUR token URL; UPS fetches a token
 * there with client credentials (client_secret_basic) and posts each event with
 * `Authorization: Bearer <token>` and `x-api-key: <client id>`.
 *
 * Our tokens are stateless: the expiry and an HMAC of it under the client secret, so any web process
 * checks any token without shared state, and rotating the secret revokes every token at once.
 */
export interface PushCredentials {
  clientId: string;
  clientSecret: string;
}

export const PUSH_TOKEN_TTL_SECONDS = 3600;

/** Throw-away credentials for the built-in sandbox (it is registered with them in-process). */
export function generatedPushCredentials(): PushCredentials {
  return {
    clientId: `doorstep-push-${randomBytes(6).toString('hex')}`,
    clientSecret: randomBytes(32).toString('base64url'),
  };
}

export function issuePushToken(
  credentials: PushCredentials,
  now: Date,
): { accessToken: string; expiresInSeconds: number } {
  const expires = Math.floor(now.getTime() / 1000) + PUSH_TOKEN_TTL_SECONDS;
  return { accessToken: `${expires}.${sign(credentials, expires)}`, expiresInSeconds: PUSH_TOKEN_TTL_SECONDS };
}

/** An `Authorization: Bearer …` value carrying a token we issued that has not expired. Constant time. */
export function acceptsPushToken(credentials: PushCredentials, authorization: string | undefined, now: Date): boolean {
  const match = /^Bearer\s+(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(authorization?.trim() ?? '');
  if (!match) return false;
  const expires = Number(match[1]);
  const signatureOk = timingSafeEqual(Buffer.from(match[2]!), Buffer.from(sign(credentials, expires)));
  return signatureOk && expires * 1000 > now.getTime();
}

/** An `Authorization: Basic …` value carrying exactly our client id and secret. Constant time. */
export function acceptsPushClient(credentials: PushCredentials, authorization: string | undefined): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return false;
  const idOk = sameText(decoded.slice(0, separator), credentials.clientId);
  const secretOk = sameText(decoded.slice(separator + 1), credentials.clientSecret);
  return idOk && secretOk;
}

/** Equal texts, compared in constant time whatever their lengths (digests have one length). */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function sign(credentials: PushCredentials, expires: number): string {
  return createHmac('sha256', credentials.clientSecret)
    .update(`doorstep-push-token\n${credentials.clientId}\n${expires}`)
    .digest('base64url');
}
