import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, loadConfig } from '../src/config.ts';

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

  it("turns the carrier sandbox off with a real database, and then requires every carrier's credentials", () => {
    expect(loadConfig({}).carrierSandbox).toBe(true);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/doorstep' })).toThrow(
      /USPS_CLIENT_ID and USPS_CLIENT_SECRET are required/,
    );
    const all = {
      UPS_CLIENT_ID: 'u',
      UPS_CLIENT_SECRET: 'u',
      FEDEX_CLIENT_ID: 'f',
      FEDEX_CLIENT_SECRET: 'f',
      USPS_CLIENT_ID: 's',
      USPS_CLIENT_SECRET: 's',
    };
    expect(loadConfig({ DATABASE_URL: 'postgres://db/doorstep', ...all }).carrierSandbox).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/doorstep', CARRIER_SANDBOX: 'on' }).carrierSandbox).toBe(true);
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
      describeConfig(loadConfig({ DATABASE_URL: 'postgres://app:s3cret@db:5432/doorstep', CARRIER_SANDBOX: 'on' })),
    );
    expect(described).not.toContain('s3cret');
  });
});
