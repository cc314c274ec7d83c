import type { CarrierHttp } from './http.ts';
import { createTokenCache, readTokenResponse, type TokenCache } from './oauth.ts';

/**
 * FedEx's OAuth, shared by the Track API and AIV clients: `POST /oauth/token` with a form body of
 * grant_type, client_id and client_secret (docs/carriers/NOTES.md; the specs only say "Bearer").
 */
export function createFedexTokenCache(
  http: CarrierHttp,
  options: { clientId: string; clientSecret: string; now?: () => Date },
): TokenCache {
  return createTokenCache({
    now: options.now ?? (() => new Date()),
    fetchToken: async () =>
      readTokenResponse(
        'fedex',
        await http.send({
          operation: 'oauth',
          trackingNumbers: 0,
          method: 'POST',
          path: '/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: options.clientId,
            client_secret: options.clientSecret,
          }).toString(),
        }),
      ),
  });
}
