import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, loadConfig } from '../src/config.ts';
import { tokenKeyId } from '../src/shopify/auth/token-cipher.ts';

/** A real database needs the token key (every process shares it); these tests are about other settings. */
const TOKEN_ENCRYPTION_KEY = randomBytes(32).toString('base64');

describe('loadConfig', () => {
  it('uses the embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      logLevel: 'info',
    });
    expect(config.dataDir.endsWith('/data')).toBe(true);
  });

  it('derives PUBLIC_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://gifts.example.com/' }).publicUrl).toBe('https://gifts.example.com');
  });

  it('names every bad setting in one clear error', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'not a url' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    } catch (error) {
      expect((error as Error).message).toContain('PORT: must be a number, got "eighty"');
      expect((error as Error).message).toMatch(/LOG_LEVEL/);
    }
  });

  it('reads how many Shopify webhooks a worker process works at once: 8 by default, 1 to 64', () => {
    expect(loadConfig({}).shopifyWebhookConcurrency).toBe(8);
    expect(loadConfig({ SHOPIFY_WEBHOOK_CONCURRENCY: '16' }).shopifyWebhookConcurrency).toBe(16);
    expect(() => loadConfig({ SHOPIFY_WEBHOOK_CONCURRENCY: '0' })).toThrow(/SHOPIFY_WEBHOOK_CONCURRENCY/);
  });

  it('reads the send recovery timeouts, the first backoff step and the reconcile cadence, with the production defaults', () => {
    expect(loadConfig({})).toMatchObject({
      sendTiming: { claimTimeoutMs: 120_000, sendingTimeoutMs: 300_000, retryFirstDelayMs: 30_000 },
      reconcileEveryMs: 60_000,
    });
    expect(
      loadConfig({
        SEND_CLAIM_TIMEOUT_MS: '5000',
        SEND_SENDING_TIMEOUT_MS: '20000',
        SEND_RETRY_FIRST_DELAY_MS: '1000',
        RECONCILE_EVERY_MS: '1000',
      }),
    ).toMatchObject({
      sendTiming: { claimTimeoutMs: 5_000, sendingTimeoutMs: 20_000, retryFirstDelayMs: 1_000 },
      reconcileEveryMs: 1_000,
    });
    const message = (() => {
      try {
        loadConfig({ SEND_CLAIM_TIMEOUT_MS: '10', RECONCILE_EVERY_MS: 'soon' });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/^ {2}SEND_CLAIM_TIMEOUT_MS: .*>=1000.*, got "10"$/m);
    expect(message).toContain('RECONCILE_EVERY_MS: must be a number, got "soon"');
  });

  it('never echoes a secret or a URL (which may hold a password) back', () => {
    try {
      loadConfig({ DATABASE_URL: 'postgres://u:hunter2@', SHUTDOWN_TIMEOUT_MS: 'x' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/DATABASE_URL/);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('refuses half-configured carrier or SMS credentials instead of silently using the sandbox', () => {
    expect(() => loadConfig({ UPS_CLIENT_ID: 'id' })).toThrow(/UPS_CLIENT_ID and UPS_CLIENT_SECRET/);
    expect(() => loadConfig({ SMS_ACCOUNT_SID: 'AC1' })).toThrow(/SMS_FROM/);
    expect(loadConfig({ FEDEX_CLIENT_ID: 'id', FEDEX_CLIENT_SECRET: 's' }).carriers.fedex).toEqual({
      baseUrl: 'https://apis.fedex.com',
      clientId: 'id',
      clientSecret: 's',
    });
    expect(loadConfig({}).carriers.ups).toBeNull();
  });

  it('gives npm run worker a niceness of 10 unless WORKER_NICE says another (0–19), and names a bad one', () => {
    expect(loadConfig({}).workerNice).toBe(10);
    expect(loadConfig({ WORKER_NICE: '0' }).workerNice).toBe(0);
    expect(() => loadConfig({ WORKER_NICE: '20' })).toThrow(/WORKER_NICE/);
    expect(() => loadConfig({ WORKER_NICE: 'low' })).toThrow(/WORKER_NICE/);
  });

  it('reads per-carrier quotas like USPS_QUOTA=3/minute, and names a bad one', () => {
    expect(loadConfig({ USPS_QUOTA: '3/minute', FEDEX_QUOTA: '140/10s' }).carrierQuotas).toEqual({
      ups: null,
      fedex: { max: 140, durationMs: 10_000 },
      usps: { max: 3, durationMs: 60_000 },
    });
    expect(loadConfig({ UPS_QUOTA: '' }).carrierQuotas.ups).toBeNull();
    expect(describeConfig(loadConfig({ USPS_QUOTA: '3/minute' })).carrierQuotas).toEqual({
      ups: 'default',
      fedex: 'default',
      usps: '3/60s',
    });
    expect(() => loadConfig({ USPS_QUOTA: '3 per minute' })).toThrow(
      /USPS_QUOTA: must be calls per window, e\.g\. 60\/hour, 3\/minute or 140\/10s \(got "3 per minute"\)/,
    );
    expect(() => loadConfig({ UPS_QUOTA: '0/s' })).toThrow(/UPS_QUOTA: must allow at least 1 call/);
  });

  it("reads the FedEx AIV security token under FedEx's rules, never echoing it, and wants the account with real FedEx", () => {
    const token = 'Doorstep-Aiv-Token-2026-abcdef';
    expect(loadConfig({ FEDEX_PUSH_SECURITY_TOKEN: token }).carrierPush.fedex).toEqual({
      enabled: true,
      securityToken: token,
      accountNumber: null,
      projectId: null,
      client: null,
    });
    expect(describeConfig(loadConfig({ FEDEX_PUSH_SECURITY_TOKEN: token })).carrierPush).toMatchObject({
      fedex: 'Advanced Integrated Visibility',
    });
    expect(JSON.stringify(describeConfig(loadConfig({ FEDEX_PUSH_SECURITY_TOKEN: token })))).not.toContain(token);
    expect(describeConfig(loadConfig({})).carrierPush).toMatchObject({ fedex: 'sandbox' });
    expect(describeConfig(loadConfig({ FEDEX_PUSH: 'off' })).carrierPush).toMatchObject({ fedex: 'off' });
    for (const bad of [
      'Sh0rt',
      'alllowercaseanddigits0123456789',
      'ALLUPPERCASEANDDIGITS0123456789',
      'NoDigitsAtAllInThisTokenHere',
      `Aa1${'x'.repeat(98)}`,
    ]) {
      let message = '';
      try {
        loadConfig({ FEDEX_PUSH_SECURITY_TOKEN: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, bad).toMatch(/FEDEX_PUSH_SECURITY_TOKEN/);
      expect(message, bad).not.toContain(bad);
    }
    const real = { FEDEX_CLIENT_ID: 'id', FEDEX_CLIENT_SECRET: 's', FEDEX_PUSH_SECURITY_TOKEN: token };
    expect(() => loadConfig(real)).toThrow(/FEDEX_PUSH_ACCOUNT_NUMBER is required/);
    expect(() => loadConfig({ ...real, FEDEX_PUSH_ACCOUNT_NUMBER: '12345' })).toThrow(/9-digit/);
    expect(loadConfig({ ...real, FEDEX_PUSH_ACCOUNT_NUMBER: '123456789' }).carrierPush.fedex.accountNumber).toBe(
      '123456789',
    );
    expect(loadConfig({ ...real, FEDEX_PUSH: 'off' }).carrierPush.fedex.enabled).toBe(false);
    expect(() => loadConfig({ FEDEX_PUSH_CLIENT_ID: 'id' })).toThrow(
      /FEDEX_PUSH_CLIENT_ID and FEDEX_PUSH_CLIENT_SECRET/,
    );
  });

  it("turns the carrier sandbox off in production, and then requires every carrier's credentials", () => {
    expect(loadConfig({}).carrierSandbox).toBe(true);
    // A developer's own PostgreSQL is still development: sandbox on, no key to bring.
    expect(loadConfig({ DATABASE_URL: 'postgres://db/doorstep' })).toMatchObject({
      production: false,
      carrierSandbox: true,
    });
    expect(() => loadConfig({ DOORSTEP_ENV: 'production', TOKEN_ENCRYPTION_KEY })).toThrow(
      /USPS_CLIENT_ID and USPS_CLIENT_SECRET are required: in production/,
    );
    // The Docker image's NODE_ENV=production is production unless DOORSTEP_ENV says otherwise.
    expect(() => loadConfig({ NODE_ENV: 'production', TOKEN_ENCRYPTION_KEY })).toThrow(/are required: in production/);
    expect(loadConfig({ NODE_ENV: 'production', DOORSTEP_ENV: 'development' }).production).toBe(false);
    const all = {
      UPS_CLIENT_ID: 'u',
      UPS_CLIENT_SECRET: 'u',
      FEDEX_CLIENT_ID: 'f',
      FEDEX_CLIENT_SECRET: 'f',
      USPS_CLIENT_ID: 's',
      USPS_CLIENT_SECRET: 's',
    };
    const db = { DOORSTEP_ENV: 'production', DATABASE_URL: 'postgres://db/doorstep', TOKEN_ENCRYPTION_KEY };
    expect(loadConfig({ ...db, ...all }).carrierSandbox).toBe(false);
    expect(loadConfig({ ...db, CARRIER_SANDBOX: 'on' }).carrierSandbox).toBe(true);
  });

  it('reads what `shopify app dev` sets (APP_URL, SCOPES) when ours are unset, never describing the secret', () => {
    const cli = {
      SHOPIFY_API_KEY: 'cli-key',
      SHOPIFY_API_SECRET: 'cli-secret-value',
      SCOPES: 'read_fulfillments,read_orders',
      APP_URL: 'https://tunnel.example.com/',
      HOST: 'https://tunnel.example.com',
      PORT: '4123',
    };
    const config = loadConfig(cli);
    expect(config.port).toBe(4123);
    expect(config.publicUrl).toBe('https://tunnel.example.com');
    expect(config.shopify).toMatchObject({
      apiKey: 'cli-key',
      apiSecret: 'cli-secret-value',
      appUrl: 'https://tunnel.example.com',
      scopes: ['read_fulfillments', 'read_orders'],
      development: false,
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain('cli-secret-value');

    // Our own names win; the Shopify app URL follows the tunnel even when PUBLIC_URL is set.
    const ours = loadConfig({ ...cli, PUBLIC_URL: 'https://gifts.example.com', SHOPIFY_SCOPES: 'read_orders' });
    expect(ours.publicUrl).toBe('https://gifts.example.com');
    expect(ours.shopify.appUrl).toBe('https://tunnel.example.com');
    expect(ours.shopify.scopes).toEqual(['read_orders']);
    expect(loadConfig({ ...cli, SHOPIFY_APP_URL: 'https://app.example.com' }).shopify.appUrl).toBe(
      'https://app.example.com',
    );

    // HOST alone is not read: shells and tools set it to a bare host name.
    expect(loadConfig({ HOST: 'my-laptop' }).publicUrl).toBe('http://localhost:3000');
    expect(() => loadConfig({ APP_URL: 'tunnel' })).toThrow(/APP_URL/);
    expect(() => loadConfig({ SCOPES: 'read orders' })).toThrow(/SCOPES: must be comma-separated scopes/);
  });

  it('never shows the database password in its description', () => {
    const described = JSON.stringify(
      describeConfig(
        loadConfig({
          DATABASE_URL: 'postgres://app:s3cret@db:5432/doorstep',
          CARRIER_SANDBOX: 'on',
          TOKEN_ENCRYPTION_KEY,
        }),
      ),
    );
    expect(described).not.toContain('s3cret');
  });

  describe('the Shopify token encryption keys', () => {
    const key = randomBytes(32);
    const old = randomBytes(32);

    it('reads TOKEN_ENCRYPTION_KEY as base64 or hex and TOKEN_ENCRYPTION_PREVIOUS_KEYS as a comma-separated list', () => {
      expect(loadConfig({}).tokenEncryption).toEqual({ key: null, previousKeys: [] });
      expect(loadConfig({ TOKEN_ENCRYPTION_KEY: key.toString('hex') }).tokenEncryption.key).toEqual(key);
      const config = loadConfig({
        TOKEN_ENCRYPTION_KEY: key.toString('base64'),
        TOKEN_ENCRYPTION_PREVIOUS_KEYS: ` ${old.toString('base64')} , ${randomBytes(32).toString('hex')},`,
      });
      expect(config.tokenEncryption.key).toEqual(key);
      expect(config.tokenEncryption.previousKeys).toHaveLength(2);
      expect(config.tokenEncryption.previousKeys[0]).toEqual(old);
    });

    it('describes the keys by their ids only', () => {
      const described = JSON.stringify(
        describeConfig(
          loadConfig({
            TOKEN_ENCRYPTION_KEY: key.toString('base64'),
            TOKEN_ENCRYPTION_PREVIOUS_KEYS: old.toString('hex'),
          }),
        ),
      );
      expect(described).toContain(
        `"tokenEncryption":{"key":"${tokenKeyId(key)}","previousKeys":["${tokenKeyId(old)}"]}`,
      );
      for (const text of [key.toString('base64'), key.toString('hex'), old.toString('hex'), old.toString('base64')])
        expect(described).not.toContain(text);
    });

    it('names a bad key in one line with how to make one, never echoing it', () => {
      const wrong = 'not-a-key-but-a-secret';
      for (const env of [
        { TOKEN_ENCRYPTION_KEY: wrong },
        { TOKEN_ENCRYPTION_KEY: randomBytes(16).toString('base64') },
        { TOKEN_ENCRYPTION_PREVIOUS_KEYS: `${old.toString('base64')},${wrong}` },
      ]) {
        let message = '';
        try {
          loadConfig(env);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toMatch(/^ {2}TOKEN_ENCRYPTION_(PREVIOUS_KEYS|KEY): .*openssl rand -base64 32/m);
        expect(message).not.toContain(wrong);
        expect(message).not.toContain(old.toString('base64'));
      }
      expect(() => loadConfig({ TOKEN_ENCRYPTION_PREVIOUS_KEYS: `${old.toString('base64')},nope` })).toThrow(
        /TOKEN_ENCRYPTION_PREVIOUS_KEYS: key 2 of 2 must be 32 random bytes/,
      );
    });

    it('requires TOKEN_ENCRYPTION_KEY in production: processes sharing a database must share the key', () => {
      expect(() =>
        loadConfig({ DOORSTEP_ENV: 'production', DATABASE_URL: 'postgres://db/doorstep', CARRIER_SANDBOX: 'on' }),
      ).toThrow(/TOKEN_ENCRYPTION_KEY is required in production: .*openssl rand -base64 32/);
    });

    it('calls a malformed DATABASE_URL malformed at start, without echoing it', () => {
      for (const url of [
        'localhost:5432/doorstep',
        'postgres://',
        'postgres://db.example.com',
        'mysql://db/doorstep',
      ]) {
        let message = '';
        try {
          loadConfig({ DATABASE_URL: url });
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message, url).toMatch(
          /DATABASE_URL: must be a PostgreSQL URL like postgres:\/\/user:password@host:5432\/database/,
        );
        // (`postgres://` alone is the start of the example the message gives.)
        if (url !== 'postgres://') expect(message, url).not.toContain(url);
      }
      expect(
        loadConfig({ DATABASE_URL: 'postgresql://u:p%40ss@db:5432/doorstep?sslmode=require' }).databaseUrl,
      ).toBeDefined();
      expect(loadConfig({ DATABASE_URL: 'postgres:///doorstep?host=/var/run/postgresql' }).databaseUrl).toBeDefined();
    });
  });
});
