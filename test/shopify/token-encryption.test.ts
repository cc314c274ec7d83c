import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/db/open.ts';
import { createLogger } from '../../src/logger.ts';
import { registerShop } from '../../src/shopify/shops.ts';
import { openStoredToken, resealShopTokens, sealTokenPair } from '../../src/shopify/auth/stored-tokens.ts';
import { sealedKeyId, TokenCipher, tokenKeyId } from '../../src/shopify/auth/token-cipher.ts';
import { resolveTokenKey, TOKEN_KEY_FILE } from '../../src/shopify/auth/token-key-file.ts';
import { ShopNotConnectedError, ShopTokens } from '../../src/shopify/auth/tokens.ts';
import { runCli } from '../support/processes.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

const K1 = randomBytes(32);
const K2 = randomBytes(32);
const K3 = randomBytes(32);

let app: ShopifyTestApp;
let fake: FakeShopify;
let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ app, fake, close } = await startShopifyTestAppWithFakeShopify({
    env: { TOKEN_ENCRYPTION_KEY: K1.toString('base64') },
  }));
});
afterAll(async () => {
  await close?.();
});

const db = () => app.services.database.db;
const shopRow = (shop: string) =>
  db().selectFrom('shops').selectAll().where('domain', '=', shop).executeTakeFirstOrThrow();
/** The tokens the Shopify fake issued to a shop (live or not). */
const issuedTo = (shop: string) =>
  [...fake.accessTokens, ...fake.refreshTokens].filter(([, t]) => t.shop === shop).map(([token]) => token);
/** What a process started with these keys reads: the same database and Shopify, its own cipher. */
const tokensWith = (cipher: TokenCipher) =>
  new ShopTokens({ db: db(), shopify: app.shopify.library, logger: createLogger('silent'), cipher });

/** An embedded load of the app: the token exchange installs the shop and stores its pair. */
async function install(shop: string): Promise<void> {
  const page = await fetch(`${app.baseUrl}/shopify/app?id_token=${sessionToken(shop, API_KEY, SECRET)}`);
  expect(page.status).toBe(200);
}

describe('Shopify tokens at rest', () => {
  it('an install stores no plain token: both are sealed under TOKEN_ENCRYPTION_KEY, and the app still uses them', async () => {
    const shop = `sealed-${Date.now()}.myshopify.com`;
    await install(shop);
    const row = await shopRow(shop);
    const stored = JSON.stringify(row);
    expect(issuedTo(shop)).toHaveLength(2);
    for (const token of issuedTo(shop)) expect(stored).not.toContain(token);
    expect(sealedKeyId(row.access_token!)).toBe(tokenKeyId(K1));
    expect(sealedKeyId(row.refresh_token!)).toBe(tokenKeyId(K1));
    // End to end: the billing API calls Shopify with the opened token.
    const token = await app.shopify.tokens.accessToken(shop);
    expect(fake.shopOfAccessToken(token)).toBe(shop);
  });

  it('after a key change, values under the previous key keep working until the rotation re-encrypts them', async () => {
    const shops = [`rotate-a-${Date.now()}.myshopify.com`, `rotate-b-${Date.now()}.myshopify.com`];
    for (const shop of shops) await install(shop);
    const before = await Promise.all(shops.map((shop) => app.shopify.tokens.accessToken(shop)));

    // Restarted with TOKEN_ENCRYPTION_KEY=K2 and TOKEN_ENCRYPTION_PREVIOUS_KEYS=K1.
    const rotated = new TokenCipher(K2, [K1]);
    expect(await Promise.all(shops.map((shop) => tokensWith(rotated).accessToken(shop)))).toEqual(before);
    // Without K1 the old values do not open: that is what the rotation is for.
    await expect(tokensWith(new TokenCipher(K2)).accessToken(shops[0]!)).rejects.toThrow(ShopNotConnectedError);

    const result = await resealShopTokens(db(), rotated);
    expect(result.unreadable).toEqual([]);
    expect(result.changed).toBeGreaterThanOrEqual(2); // this file's earlier shops are rotated too
    for (const shop of shops) {
      const row = await shopRow(shop);
      expect(sealedKeyId(row.access_token!)).toBe(tokenKeyId(K2));
      expect(sealedKeyId(row.refresh_token!)).toBe(tokenKeyId(K2));
      for (const token of issuedTo(shop)) expect(JSON.stringify(row)).not.toContain(token);
    }
    // Now K1 can be dropped: K2 alone opens every row, and the tokens are the ones Shopify issued.
    expect(await Promise.all(shops.map((shop) => tokensWith(new TokenCipher(K2)).accessToken(shop)))).toEqual(before);
    // A second run has nothing to do.
    const again = await resealShopTokens(db(), rotated);
    expect(again.changed).toBe(0);
    expect(again.alreadyCurrent).toBe(result.changed + result.alreadyCurrent);

    // Back to K1 for the rest of the file (the app itself still runs on K1).
    expect((await resealShopTokens(db(), new TokenCipher(K1, [K2]))).unreadable).toEqual([]);
  });

  it('a rotation never overwrites a pair refreshed meanwhile', async () => {
    const shop = `race-${Date.now()}.myshopify.com`;
    await install(shop);
    const old = await shopRow(shop);
    const rotated = new TokenCipher(K2, [K1]);
    // A refresh stored a new pair (under the current key) after the rotation read the old one: the
    // rotation's first read is made to return the old pair while the row holds the new.
    const fresh = sealTokenPair(rotated, shop, {
      accessToken: 'shpat_fresh',
      accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
      refreshToken: 'shprt_fresh',
      refreshTokenExpiresAt: null,
      scopes: null,
    });
    await db()
      .updateTable('shops')
      .set({ access_token: fresh.accessToken, refresh_token: fresh.refreshToken })
      .where('domain', '=', shop)
      .execute();
    let stale = false;
    const readingStale = db().withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (stale) return args.result;
        const rows = args.result.rows.map((row) => {
          const r = row as { domain?: string; access_token?: string; refresh_token?: string };
          if (r.domain !== shop || r.access_token !== fresh.accessToken) return row;
          stale = true;
          return { ...r, access_token: old.access_token, refresh_token: old.refresh_token };
        });
        return { ...args.result, rows };
      },
    });
    await resealShopTokens(readingStale, rotated);
    expect(stale).toBe(true);
    const row = await shopRow(shop);
    expect(row.access_token).toBe(fresh.accessToken);
    expect(row.refresh_token).toBe(fresh.refreshToken);
    expect(openStoredToken(rotated, shop, 'access_token', row.access_token!)).toBe('shpat_fresh');
    await db()
      .updateTable('shops')
      .set({ access_token: old.access_token, refresh_token: old.refresh_token })
      .where('domain', '=', shop)
      .execute();
  });

  it('plain-text rows of earlier versions are read as they are and sealed at start', async () => {
    const shop = `legacy-${Date.now()}.myshopify.com`;
    await install(shop);
    const token = await app.shopify.tokens.accessToken(shop);
    const refresh = openStoredToken(
      app.shopify.deps.tokenCipher,
      shop,
      'refresh_token',
      (await shopRow(shop)).refresh_token!,
    );
    // What a version before encryption left in the row.
    await db()
      .updateTable('shops')
      .set({ access_token: token, refresh_token: refresh })
      .where('domain', '=', shop)
      .execute();
    expect(await app.shopify.tokens.accessToken(shop)).toBe(token);

    expect(await app.shopify.sealPlainTextTokens()).toBe(1);
    const row = await shopRow(shop);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain(refresh);
    expect(sealedKeyId(row.refresh_token!)).toBe(tokenKeyId(K1));
    expect(await app.shopify.tokens.accessToken(shop)).toBe(token);
    expect(await app.shopify.sealPlainTextTokens()).toBe(0);
  });

  it('a wrong key gives a clear error naming key ids, never a key or a token', async () => {
    const shop = `wrong-key-${Date.now()}.myshopify.com`;
    await install(shop);
    const error = await tokensWith(new TokenCipher(K3))
      .accessToken(shop)
      .then(
        () => new Error('expected a refusal'),
        (e: unknown) => e as Error,
      );
    expect(error).toBeInstanceOf(ShopNotConnectedError);
    expect(error.message).toContain(`The stored Shopify token of ${shop} cannot be read`);
    expect(error.message).toContain(`encrypted with key ${tokenKeyId(K1)}`);
    expect(error.message).toContain(`TOKEN_ENCRYPTION_KEY is ${tokenKeyId(K3)}`);
    for (const secret of [...issuedTo(shop), K1.toString('base64'), K1.toString('hex'), K3.toString('base64')])
      expect(error.message).not.toContain(secret);
    // The rotation leaves such rows alone and names them.
    const result = await resealShopTokens(db(), new TokenCipher(K3));
    expect(result.changed).toBe(0);
    expect(result.unreadable.map((u) => u.shop)).toContain(shop);
  });
});

describe('the key on the embedded defaults', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-token-key-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is generated once into DATA_DIR (0600) and reused; a damaged file is named, not replaced', () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = resolveTokenKey(config);
    const file = path.join(dataDir, TOKEN_KEY_FILE);
    expect(first).toMatchObject({ keyFile: file, generated: true });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dataDir)).toEqual([TOKEN_KEY_FILE]); // no draft left behind
    const second = resolveTokenKey(config);
    expect(second).toMatchObject({ keyFile: file, generated: false });
    expect(second.key).toEqual(first.key);
    // TOKEN_ENCRYPTION_KEY wins over the file.
    expect(resolveTokenKey(loadConfig({ DATA_DIR: dataDir, TOKEN_ENCRYPTION_KEY: K2.toString('hex') }))).toEqual({
      key: K2,
      keyFile: null,
      generated: false,
    });
    fs.writeFileSync(file, 'garbage\n');
    expect(() => resolveTokenKey(config)).toThrow(ConfigError);
    expect(() => resolveTokenKey(config)).toThrow(`${file} does not hold a token encryption key`);
    expect(fs.readFileSync(file, 'utf8')).toBe('garbage\n');
  });
});

describe('npm run cli -- shopify rotate-token-key', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-token-rotate-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // The embedded database, opened by the CLI itself (no server runs on this DATA_DIR).
  const env = (key: Buffer, previous: Buffer[] = []) => ({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DATABASE_URL: '',
    TOKEN_ENCRYPTION_KEY: key.toString('base64'),
    TOKEN_ENCRYPTION_PREVIOUS_KEYS: previous.map((k) => k.toString('hex')).join(','),
  });
  const shops = ['cli-rotate-a.myshopify.com', 'cli-rotate-b.myshopify.com'];
  const plain = (shop: string) => ({
    accessToken: `shpat_${shop}`,
    accessTokenExpiresAt: null,
    refreshToken: `shprt_${shop}`,
    refreshTokenExpiresAt: null,
    scopes: null,
  });

  async function withDatabase<T>(use: (database: Awaited<ReturnType<typeof openConfiguredDatabase>>) => Promise<T>) {
    const database = await openConfiguredDatabase(loadConfig(env(K1)));
    try {
      return await use(database);
    } finally {
      await database.close();
    }
  }

  it('re-encrypts every shop under the new key, prints how many, and refuses to pretend when a key is missing', async () => {
    // Two shops under K1, one left in plain text by an earlier version.
    await withDatabase(async ({ db: handle }) => {
      for (const shop of shops)
        await registerShop(handle, shop, { tokens: sealTokenPair(new TokenCipher(K1), shop, plain(shop)) });
      await handle.updateTable('shops').set({ access_token: 'shpat_legacy' }).where('domain', '=', shops[1]!).execute();
    });

    // Without K1 among its keys the command changes nothing it cannot read, and says so (exit 1).
    const missing = await runCli(['shopify', 'rotate-token-key'], env(K2));
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`under key ${tokenKeyId(K2)}`);
    expect(missing.stderr).toContain('The tokens of 2 shop(s) were left as they are');
    expect(missing.stderr).toContain(`encrypted with key ${tokenKeyId(K1)}`);
    expect(`${missing.stdout}${missing.stderr}`).not.toMatch(/shpat_|shprt_/);

    const rotated = await runCli(['shopify', 'rotate-token-key'], env(K2, [K1]));
    expect(rotated.stderr).not.toContain('left as they are');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toBe(
      `Re-encrypted the tokens of 2 shop(s) under key ${tokenKeyId(K2)}; 0 already under it.\n`,
    );

    const again = await runCli(['shopify', 'rotate-token-key', '--json'], env(K2));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      key_id: tokenKeyId(K2),
      changed: 0,
      already_current: 2,
      unreadable: [],
    });

    await withDatabase(async ({ db: handle }) => {
      const rows = await handle
        .selectFrom('shops')
        .selectAll()
        .where('domain', 'in', shops)
        .orderBy('domain')
        .execute();
      expect(JSON.stringify(rows)).not.toMatch(/shpat_|shprt_/);
      const k2 = new TokenCipher(K2);
      expect(rows.map((row) => openStoredToken(k2, row.domain, 'access_token', row.access_token!))).toEqual([
        `shpat_${shops[0]}`,
        'shpat_legacy',
      ]);
      expect(openStoredToken(k2, shops[0]!, 'refresh_token', rows[0]!.refresh_token!)).toBe(`shprt_${shops[0]}`);
    });
  }, 90_000);
});
