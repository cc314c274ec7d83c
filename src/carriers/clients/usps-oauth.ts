import type { CarrierHttp } from './http.ts';
import { createTokenCache, readTokenResponse, type TokenCache } from './oauth.ts';

/**
 * USPS's OAuth, shared by the Tracking and Subscriptions-Tracking clients: `POST /oauth2/v3/token`
 * with a JSON body (docs/carriers/NOTES.md); each API asks for its own scope.
 */
export function createUspsTokenCache(
  http: CarrierHttp,
  options: { clientId: string; clientSecret: string; now?: () => Date },
  scope: 'tracking' | 'subscriptions-tracking',
): TokenCache {
  return createTokenCache({
    now: options.now ?? (() => new Date()),
    fetchToken: async () =>
      readTokenResponse(
        'usps',
        await http.send({
          operation: 'oauth',
          trackingNumbers: 0,
          method: 'POST',
          path: '/oauth2/v3/token',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            grant_type: 'client_credentials',
            client_id: options.clientId,
            client_secret: options.clientSecret,
            scope,
          }),
        }),
      ),
  });
}
