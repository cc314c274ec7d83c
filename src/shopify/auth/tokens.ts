import type { Session } from '@shopify/shopify-api';
import type { Db } from '../../db/database.ts';
import { ServiceUnavailableError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { ShopifyLibrary } from '../library.ts';
import { onRefusedAccessToken } from '../admin-api.ts';
import { HttpResponseError, HttpRetriableError } from '@shopify/shopify-api';
import {
  claimTokenRefresh,
  findShop,
  forgetRefreshToken,
  releaseTokenRefresh,
  storeTokens,
  type ShopRow,
  type StoredTokenPair,
  type TokenPair,
} from '../shops.ts';
import { openStoredToken, sealTokenPair, type TokenColumn } from './stored-tokens.ts';
import { TokenDecryptionError, type TokenCipher } from './token-cipher.ts';

/** Refresh this long before expiry, so a token never expires mid-request. */
const REFRESH_MARGIN_MS = 5 * 60_000;
const REFRESH_LEASE_MS = 30_000;

export class ShopNotConnectedError extends ServiceUnavailableError {
  override name = 'ShopNotConnectedError';
}

export function sessionTokens(session: Session): TokenPair {
  return {
    accessToken: session.accessToken ?? '',
    accessTokenExpiresAt: session.expires ?? null,
    refreshToken: session.refreshToken ?? null,
    refreshTokenExpiresAt: session.refreshTokenExpires ?? null,
    scopes: session.scope ?? null,
  };
}

/**
 * A shop's offline access token, refreshed safely: one refresh per shop at a time (in this process
 * by sharing the in-flight promise, across processes by a lease row in PostgreSQL), and the rotated
 * pair stored in one statement. Tokens are sealed before they are stored and opened only here
 * (stored-tokens.ts); a token that cannot be opened (its key is missing) makes the shop "not
 * connected", with a message naming key ids only.
 */
export class ShopTokens {
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly deps: {
      db: Db;
      shopify: ShopifyLibrary;
      logger: Logger;
      cipher: TokenCipher;
      now?: () => Date;
      waitMs?: number;
    },
  ) {
    onRefusedAccessToken(deps.shopify, (domain, accessToken) => this.refused(domain, accessToken));
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Shopify refused this access token (a 401: revoked, or one it no longer knows). It is marked expired
   * when it is still the stored one, so the next use refreshes it, or, without a live refresh token,
   * the merchant's next embedded load exchanges a new pair (session-auth.ts). Before, an unexpired
   * refused token was sent, and refused, for ever: usage charges stayed pending (upgrade probe).
   */
  async refused(domain: string, accessToken: string): Promise<void> {
    const shop = await findShop(this.deps.db, domain);
    if (!shop?.access_token || this.tryOpen(domain, 'access_token', shop.access_token) !== accessToken) return;
    await this.deps.db
      .updateTable('shops')
      .set({ access_token_expires_at: new Date(0) })
      .where('domain', '=', domain)
      .where('access_token', '=', shop.access_token)
      .execute();
    this.deps.logger.warn({ shop: domain }, 'Shopify refused the access token; it is renewed at its next use');
  }

  /** A pair from Shopify, sealed for `shops` under the current key. */
  seal(domain: string, pair: TokenPair): StoredTokenPair {
    return sealTokenPair(this.deps.cipher, domain, pair);
  }

  /**
   * Whether this process can open the shop's stored access token. An embedded load of a shop whose
   * token is unreadable (written under a key since lost) exchanges a new pair (session-auth.ts).
   */
  readable(shop: Pick<ShopRow, 'domain' | 'access_token'>): boolean {
    return !shop.access_token || !(this.tryOpen(shop.domain, 'access_token', shop.access_token) instanceof Error);
  }

  private open(domain: string, column: TokenColumn, stored: string): string {
    const opened = this.tryOpen(domain, column, stored);
    if (!(opened instanceof Error)) return opened;
    this.deps.logger.error({ shop: domain, column, reason: opened.message }, 'cannot read the shop token');
    throw new ShopNotConnectedError(`The stored Shopify token of ${domain} cannot be read: ${opened.message}`);
  }

  /** The token, or the reason no key of this process opens it. */
  private tryOpen(domain: string, column: TokenColumn, stored: string): string | TokenDecryptionError {
    try {
      return openStoredToken(this.deps.cipher, domain, column, stored);
    } catch (error) {
      if (error instanceof TokenDecryptionError) return error;
      throw error;
    }
  }

  async accessToken(domain: string): Promise<string> {
    const shop = await findShop(this.deps.db, domain);
    if (!shop?.active || !shop.access_token)
      throw new ShopNotConnectedError(`${domain} has no access token (not installed, or uninstalled).`);
    if (!needsRefresh(shop.access_token_expires_at, this.now()))
      return this.open(domain, 'access_token', shop.access_token);
    // Without a live refresh token only the merchant can help: the next embedded load exchanges
    // its session token for a new pair (session-auth.ts); until then callers wait and retry.
    if (needsTokenExchange(shop, this.now()))
      throw new ShopNotConnectedError(
        `${domain} has no usable refresh token; the next embedded load of the app exchanges a new token.`,
      );
    const running = this.inFlight.get(domain);
    if (running) return running;
    const refresh = this.refresh(domain).finally(() => this.inFlight.delete(domain));
    this.inFlight.set(domain, refresh);
    return refresh;
  }

  private async refresh(domain: string): Promise<string> {
    const { db, shopify, logger } = this.deps;
    const deadline = Date.now() + (this.deps.waitMs ?? REFRESH_LEASE_MS);
    for (;;) {
      const storedRefreshToken = await claimTokenRefresh(
        db,
        domain,
        this.now(),
        REFRESH_LEASE_MS,
        new Date(this.now().getTime() + REFRESH_MARGIN_MS),
      );
      if (storedRefreshToken) {
        let refreshToken: string;
        try {
          refreshToken = this.open(domain, 'refresh_token', storedRefreshToken);
        } catch (error) {
          await releaseTokenRefresh(db, domain);
          throw error;
        }
        try {
          const { session } = await shopify.auth.refreshToken({ shop: domain, refreshToken });
          await storeTokens(db, domain, this.seal(domain, sessionTokens(session)), this.now());
          logger.info({ shop: domain }, 'refreshed the shop access token');
          return session.accessToken!;
        } catch (error) {
          // Shopify refusing the grant (expired, revoked, already used) is final for this pair:
          // forget it so the next embedded load exchanges a new one. Outages keep it for a retry.
          if (refusedByShopify(error)) {
            await forgetRefreshToken(db, domain, storedRefreshToken);
            logger.warn({ shop: domain }, 'Shopify refused the refresh token; waiting for the next embedded load');
          } else await releaseTokenRefresh(db, domain);
          throw new ShopNotConnectedError(
            `Refreshing the access token of ${domain} failed: ${(error as Error).message}`,
          );
        }
      }
      // Another process holds the lease: wait for the pair it stores.
      const shop = await findShop(db, domain);
      if (shop?.access_token && !needsRefresh(shop.access_token_expires_at, this.now()))
        return this.open(domain, 'access_token', shop.access_token);
      if (!shop?.refresh_token)
        throw new ShopNotConnectedError(`${domain} has no refresh token; the merchant must open the app again.`);
      if (Date.now() > deadline)
        throw new ShopNotConnectedError(`Timed out waiting for another process to refresh the token of ${domain}.`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export function needsRefresh(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS;
}

/** A 4xx answer to a refresh grant: Shopify will not take this refresh token again. */
function refusedByShopify(error: unknown): boolean {
  return (
    error instanceof HttpResponseError &&
    !(error instanceof HttpRetriableError) &&
    error.response.code >= 400 &&
    error.response.code < 500
  );
}

/**
 * Whether only a token exchange (an embedded load's session token) can give this shop a working
 * token: not installed, no access token, or an access token due for refresh with no live refresh
 * token (expired after 90 days, or refused by Shopify and forgotten).
 */
export function needsTokenExchange(
  shop: Pick<
    ShopRow,
    'active' | 'access_token' | 'access_token_expires_at' | 'refresh_token' | 'refresh_token_expires_at'
  >,
  now: Date,
): boolean {
  if (!shop.active || !shop.access_token) return true;
  if (!needsRefresh(shop.access_token_expires_at, now)) return false;
  return (
    !shop.refresh_token ||
    (shop.refresh_token_expires_at !== null && shop.refresh_token_expires_at.getTime() <= now.getTime())
  );
}
