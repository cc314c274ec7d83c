import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { StoredToken, StoredTokenPair, TokenPair } from '../shops.ts';
import { isSealed, TokenDecryptionError, VERSION_PREFIX, type TokenCipher } from './token-cipher.ts';

/**
 * Shopify tokens as `shops` holds them (docs/shopify.md "Tokens at rest"): each sealed by
 * token-cipher.ts under the current key, with the shop and the column as the authenticated context.
 *
 * Rows written by versions before encryption hold plain text. They are sealed at every start of the
 * web and worker processes (`resealShopTokens(…, { onlyPlainText: true })`) and by
 * `npm run cli -- shopify rotate-token-key`; until then a plain value is read as it is, so a rolling
 * upgrade never stops a shop.
 */
export type TokenColumn = 'access_token' | 'refresh_token';

function tokenContext(domain: string, column: TokenColumn): string {
  return `${domain}/${column}`;
}

export function sealToken(cipher: TokenCipher, domain: string, column: TokenColumn, token: string): StoredToken {
  return cipher.seal(token, tokenContext(domain, column)) as StoredToken;
}

export function sealTokenPair(cipher: TokenCipher, domain: string, pair: TokenPair): StoredTokenPair {
  return {
    ...pair,
    accessToken: sealToken(cipher, domain, 'access_token', pair.accessToken),
    refreshToken: pair.refreshToken === null ? null : sealToken(cipher, domain, 'refresh_token', pair.refreshToken),
  };
}

/** The token a stored value holds; throws TokenDecryptionError (key ids only) when it cannot be opened. */
export function openStoredToken(cipher: TokenCipher, domain: string, column: TokenColumn, stored: string): string {
  return isSealed(stored) ? cipher.open(stored, tokenContext(domain, column)) : stored;
}

export interface ResealResult {
  /** Shops whose stored pair was rewritten under the current key. */
  changed: number;
  /** Shops whose tokens were already all under the current key. */
  alreadyCurrent: number;
  /** Shops whose tokens cannot be opened with the keys this process has (their key is missing, or they were altered). */
  unreadable: Array<{ shop: string; reason: string }>;
}

const BATCH = 500;

/**
 * Rewrites every shop's tokens under the cipher's current key: values under a previous key and plain
 * text alike. Afterwards no row needs a previous key, which may then be dropped. `onlyPlainText`
 * reads just the rows with a plain value (the start-up step).
 *
 * Each row is written only if it still holds what was read: a refresh storing a new pair meanwhile
 * (already under the current key) wins, and the row is read again rather than overwritten with the
 * old pair.
 */
export async function resealShopTokens(
  db: Db,
  cipher: TokenCipher,
  options: { onlyPlainText?: boolean } = {},
): Promise<ResealResult> {
  const result: ResealResult = { changed: 0, alreadyCurrent: 0, unreadable: [] };
  let after = '';
  for (;;) {
    const rows = await (
      options.onlyPlainText
        ? plainTextTokenShopsQuery(db, after, BATCH)
        : db
            .selectFrom('shops')
            .select(['domain', 'access_token', 'refresh_token'])
            .where('domain', '>', after)
            .where((eb) => eb.or([eb('access_token', 'is not', null), eb('refresh_token', 'is not', null)]))
            .orderBy('domain')
            .limit(BATCH)
    ).execute();
    for (const row of rows) await resealRow(db, cipher, row, result);
    if (rows.length < BATCH) return result;
    after = rows[rows.length - 1]!.domain;
  }
}

/**
 * Shops with a token still in plain text, after `after` in domain order: the start-up step's look. The
 * condition is written out (not bound as a parameter) because it is the predicate of the partial index
 * `shops_plain_text_tokens` (migration 031), which the planner can only use when it sees the same text;
 * so a start reads the few rows needing a seal, not every shop.
 */
export function plainTextTokenShopsQuery(db: Db, after: string, limit: number) {
  return db
    .selectFrom('shops')
    .select(['domain', 'access_token', 'refresh_token'])
    .where('domain', '>', after)
    .where(
      sql<boolean>`(access_token not like ${sql.lit(`${VERSION_PREFIX}%`)} or refresh_token not like ${sql.lit(`${VERSION_PREFIX}%`)})`,
    )
    .orderBy('domain')
    .limit(limit);
}

async function resealRow(
  db: Db,
  cipher: TokenCipher,
  first: { domain: string; access_token: string | null; refresh_token: string | null },
  result: ResealResult,
): Promise<void> {
  let row: typeof first | undefined = first;
  // A handful of tries: each miss means a refresh stored a newer pair, which is under the current key.
  for (let attempt = 0; row && attempt < 5; attempt++) {
    let access: string | null;
    let refresh: string | null;
    try {
      access = reseal(cipher, row.domain, 'access_token', row.access_token);
      refresh = reseal(cipher, row.domain, 'refresh_token', row.refresh_token);
    } catch (error) {
      if (!(error instanceof TokenDecryptionError)) throw error;
      result.unreadable.push({ shop: row.domain, reason: error.message });
      return;
    }
    if (access === row.access_token && refresh === row.refresh_token) {
      result.alreadyCurrent++;
      return;
    }
    const updated = await db
      .updateTable('shops')
      .set({ access_token: access, refresh_token: refresh })
      .where('domain', '=', row.domain)
      .where('access_token', 'is not distinct from', row.access_token)
      .where('refresh_token', 'is not distinct from', row.refresh_token)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) {
      result.changed++;
      return;
    }
    row = await db
      .selectFrom('shops')
      .select(['domain', 'access_token', 'refresh_token'])
      .where('domain', '=', row.domain)
      .executeTakeFirst();
  }
  if (row) result.unreadable.push({ shop: row.domain, reason: 'its tokens kept changing while being re-encrypted' });
}

function reseal(cipher: TokenCipher, domain: string, column: TokenColumn, stored: string | null): string | null {
  if (stored === null || cipher.isCurrent(stored)) return stored;
  return sealToken(cipher, domain, column, openStoredToken(cipher, domain, column, stored));
}
