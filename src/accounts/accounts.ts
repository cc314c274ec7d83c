import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../errors.ts';
import { localeSchema, toLocale, type Locale } from '../i18n/locale.ts';
import { forgetAccountCredentials, type ApiKeyCache } from './api-key-cache.ts';
import { apiKeyHint, apiKeyMatches, generateApiKey, generateAppId, hashApiKey } from './credentials.ts';

export interface Account {
  id: string;
  name: string;
  appId: string;
  revenueShareBps: number | null;
  /** The current key's prefix and last characters, never the key; null for keys issued before hints were kept. */
  apiKeyHint: string | null;
  /** The language of its pages and messages (src/accounts/locale.ts). */
  locale: Locale;
  createdAt: Date;
}

export interface CreatedAccount {
  account: Account;
  /** Returned once, at creation; only its hash is stored. */
  apiKey: string;
}

export const newAccountSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  revenueShareBps: z
    .number()
    .int('must be a whole number of basis points')
    .min(0, 'must be 0 to 10000 basis points (0% to 100%)')
    .max(10_000, 'must be 0 to 10000 basis points (0% to 100%)')
    .nullable()
    .default(null),
  /** The language of its pages and messages (a Shopify shop's primary locale); `en` when not given. */
  locale: localeSchema.default('en'),
});

export type NewAccount = z.input<typeof newAccountSchema>;

function toAccount(row: {
  id: string;
  name: string;
  app_id: string;
  revenue_share_bps: number | null;
  api_key_hint: string | null;
  locale: string;
  created_at: Date;
}): Account {
  return {
    id: row.id,
    name: row.name,
    appId: row.app_id,
    revenueShareBps: row.revenue_share_bps,
    apiKeyHint: row.api_key_hint,
    locale: toLocale(row.locale),
    createdAt: row.created_at,
  };
}

export async function createAccount(db: Db, input: NewAccount): Promise<CreatedAccount> {
  const parsed = newAccountSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(
      'The account is not valid.',
      Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])),
    );
  }
  const apiKey = generateApiKey();
  const row = await db
    .insertInto('accounts')
    .values({
      id: `acc_${randomBytes(10).toString('hex')}`,
      name: parsed.data.name,
      app_id: generateAppId(),
      api_key_hash: hashApiKey(apiKey),
      api_key_hint: apiKeyHint(apiKey),
      revenue_share_bps: parsed.data.revenueShareBps,
      locale: parsed.data.locale,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { account: toAccount(row), apiKey };
}

/** Issues a new API key for the account (the old one stops working); returned once, stored hashed. */
export async function rotateApiKey(db: Db, accountId: string): Promise<{ appId: string; apiKey: string }> {
  const apiKey = generateApiKey();
  const row = await db
    .updateTable('accounts')
    .set({ api_key_hash: hashApiKey(apiKey), api_key_hint: apiKeyHint(apiKey) })
    .where('id', '=', accountId)
    .returning('app_id')
    .executeTakeFirstOrThrow();
  // The old key stops working in this process now, not when its cache entry ages out.
  forgetAccountCredentials(accountId);
  return { appId: row.app_id, apiKey };
}

export async function findAccount(db: Db, accountId: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  return row ? toAccount(row) : undefined;
}

export async function listAccounts(db: Db): Promise<Account[]> {
  const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toAccount);
}

// A fixed hash to compare against when the app id is unknown, so that an unknown id and a wrong
// key take the same time and an attacker cannot enumerate app ids.
const decoyHash = hashApiKey('decoy');

/** The account whose app id and API key these are, or null. */
export async function authenticate(db: Db, appId: string, apiKey: string): Promise<Account | null> {
  const row = await accountByAppIdQuery(db, appId).executeTakeFirst();
  const matches = apiKeyMatches(apiKey, row?.api_key_hash ?? decoyHash);
  return row && matches ? toAccount(row) : null;
}

/**
 * `authenticate` through the cache: a key checked in the last `API_KEY_CACHE_TTL_MS` costs no
 * database round trip. The cache holds the key's hash, which is also what the database compares.
 */
export async function authenticateCached(
  db: Db,
  cache: ApiKeyCache<Account>,
  appId: string,
  apiKey: string,
): Promise<Account | null> {
  const keyHash = hashApiKey(apiKey);
  const cached = cache.get(appId, keyHash);
  if (cached) return cached;
  const account = await authenticate(db, appId, apiKey);
  if (account) cache.set(appId, keyHash, account);
  return account;
}

/** Every /v1 request's lookup (exported so test/db/hot-query-plans.test.ts explains this text). */
export function accountByAppIdQuery(db: Db, appId: string) {
  return db.selectFrom('accounts').selectAll().where('app_id', '=', appId);
}

/**
 * The account's name as its store now calls itself (a Shopify shop renamed: shop/update). It signs
 * the store's e-mails and SMS and heads its pages. False when the name is not one an account takes.
 */
export async function renameAccount(db: Db, accountId: string, name: string): Promise<boolean> {
  const parsed = newAccountSchema.shape.name.safeParse(name);
  if (!parsed.success) return false;
  await db.updateTable('accounts').set({ name: parsed.data }).where('id', '=', accountId).execute();
  return true;
}
