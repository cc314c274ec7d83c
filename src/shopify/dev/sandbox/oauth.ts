import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxAnswer } from './http.ts';
import type { ShopifySandboxState } from './state.ts';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * `POST /admin/oauth/access_token`: the authorization-code grant (OAuth), token exchange (an
 * embedded app's session token → an expiring offline token) and the refresh grant (rotating
 * refresh tokens), as Shopify answers them
 * (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/offline-access-tokens).
 */
export async function accessTokenGrant(
  state: ShopifySandboxState,
  credentials: { apiKey: string; apiSecret: string },
  shop: string,
  body: Record<string, string>,
): Promise<SandboxAnswer> {
  if (body.client_id !== credentials.apiKey || body.client_secret !== credentials.apiSecret)
    return { status: 401, body: { error: 'invalid_client' } };
  const failure = state.tokenFailures.shift();
  if (failure !== undefined) return { status: failure, body: { errors: 'Internal error' } };
  const grant = body.grant_type ?? 'authorization_code';
  if (grant === 'refresh_token') {
    state.grants.push({ shop, grant_type: grant });
    const known = state.refreshTokens.get(body.refresh_token ?? '');
    // Rotating refresh tokens: each works once; a second use (a refresh race) or an expired one is refused.
    if (state.refuseRefreshes || known?.shop !== shop || known.expiresAt <= Date.now())
      return {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'The refresh token is expired, revoked or already used.' },
      };
    state.refreshTokens.delete(body.refresh_token!);
    await state.refreshArrived();
    return { status: 200, body: state.issueTokens(shop) };
  }
  if (grant === TOKEN_EXCHANGE) {
    if (!sessionTokenValid(body.subject_token ?? '', credentials, shop))
      return { status: 400, body: { error: 'invalid_subject_token' } };
    state.grants.push({ shop, grant_type: grant });
    return { status: 200, body: state.issueTokens(shop) };
  }
  if (body.code) {
    state.grants.push({ shop, grant_type: grant });
    return { status: 200, body: state.issueTokens(shop) };
  }
  return { status: 400, body: { error: 'unsupported_grant_type' } };
}

/** A session token signed with the app's secret, for the app, naming this shop (HS256 JWT). */
function sessionTokenValid(token: string, credentials: { apiKey: string; apiSecret: string }, shop: string): boolean {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return false;
  const expected = createHmac('sha256', credentials.apiSecret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: string; dest?: string };
    return claims.aud === credentials.apiKey && claims.dest === `https://${shop}`;
  } catch {
    return false;
  }
}
