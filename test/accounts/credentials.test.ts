import { describe, expect, it } from 'vitest';
import {
  apiKeyMatches,
  generateApiKey,
  generateAppId,
  hashApiKey,
  parseBasicAuth,
} from '../../src/accounts/credentials.ts';

describe('credentials', () => {
  it('generates distinct, prefixed app ids and keys', () => {
    expect(generateAppId()).toMatch(/^app_[0-9a-f]{20}$/);
    const key = generateApiKey();
    expect(key).toMatch(/^dsk_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(key);
  });

  it('matches a key only against its own hash', () => {
    const key = generateApiKey();
    expect(apiKeyMatches(key, hashApiKey(key))).toBe(true);
    expect(apiKeyMatches(`${key}x`, hashApiKey(key))).toBe(false);
    expect(apiKeyMatches(key, 'short')).toBe(false);
  });

  it('parses Basic credentials, keeping colons inside the password', () => {
    const header = `Basic ${Buffer.from('app_1:pa:ss').toString('base64')}`;
    expect(parseBasicAuth(header)).toEqual({ user: 'app_1', password: 'pa:ss' });
    expect(parseBasicAuth('Bearer abc')).toBeNull();
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeNull();
    expect(parseBasicAuth(undefined)).toBeNull();
  });
});
