import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isSealed,
  parseTokenKey,
  sealedKeyId,
  TokenCipher,
  TokenDecryptionError,
  tokenKeyId,
  TokenKeyFormatError,
} from '../../src/shopify/auth/token-cipher.ts';

const key = randomBytes(32);
const otherKey = randomBytes(32);
const token = 'shpat_0123456789abcdef0123456789abcdef';
const context = 'store.myshopify.com/access_token';

describe('TokenCipher', () => {
  it('round-trips a token in the self-describing form, never holding the plain text', () => {
    const cipher = new TokenCipher(key);
    const stored = cipher.seal(token, context);
    expect(stored).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(token);
    expect(sealedKeyId(stored)).toBe(tokenKeyId(key));
    expect(isSealed(stored)).toBe(true);
    expect(cipher.open(stored, context)).toBe(token);
    expect(cipher.open(cipher.seal('', context), context)).toBe('');
  });

  it('uses a fresh IV for every value: the same token sealed twice gives two different values', () => {
    const cipher = new TokenCipher(key);
    const values = Array.from({ length: 50 }, () => cipher.seal(token, context));
    expect(new Set(values).size).toBe(50);
    expect(new Set(values.map((value) => value.split(':')[3])).size).toBe(50);
  });

  it('refuses a tampered value: ciphertext, tag or IV changed', () => {
    const cipher = new TokenCipher(key);
    const stored = cipher.seal(token, context);
    const parts = stored.split(':');
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0]! ^= 1;
      return bytes.toString('base64url');
    };
    for (const index of [3, 4, 5]) {
      const tampered = parts.map((part, i) => (i === index ? flip(part) : part)).join(':');
      expect(() => cipher.open(tampered, context)).toThrow(TokenDecryptionError);
      expect(() => cipher.open(tampered, context)).toThrow(/failed its integrity check/);
    }
    expect(() => cipher.open(`${parts.slice(0, 5).join(':')}`, context)).toThrow(/malformed/);
  });

  it("refuses a value copied into another shop's row or the other column (the context is authenticated)", () => {
    const cipher = new TokenCipher(key);
    const stored = cipher.seal(token, context);
    expect(() => cipher.open(stored, 'other.myshopify.com/access_token')).toThrow(/failed its integrity check/);
    expect(() => cipher.open(stored, 'store.myshopify.com/refresh_token')).toThrow(TokenDecryptionError);
  });

  it('refuses a value under a key it does not have, naming key ids only', () => {
    const stored = new TokenCipher(otherKey).seal(token, context);
    const cipher = new TokenCipher(key);
    let message = '';
    try {
      cipher.open(stored, context);
    } catch (error) {
      expect(error).toBeInstanceOf(TokenDecryptionError);
      message = (error as Error).message;
    }
    expect(message).toContain(`encrypted with key ${tokenKeyId(otherKey)}`);
    expect(message).toContain(`TOKEN_ENCRYPTION_KEY is ${tokenKeyId(key)}`);
    expect(message).toContain('TOKEN_ENCRYPTION_PREVIOUS_KEYS');
    for (const secret of [key, otherKey]) {
      expect(message).not.toContain(secret.toString('base64'));
      expect(message).not.toContain(secret.toString('hex'));
    }
    expect(message).not.toContain(token);
  });

  it('opens values under a previous key, seals only under the current one', () => {
    const old = new TokenCipher(otherKey);
    const stored = old.seal(token, context);
    const rotated = new TokenCipher(key, [otherKey]);
    expect(rotated.open(stored, context)).toBe(token);
    expect(rotated.isCurrent(stored)).toBe(false);
    const resealed = rotated.seal(token, context);
    expect(rotated.isCurrent(resealed)).toBe(true);
    expect(sealedKeyId(resealed)).toBe(tokenKeyId(key));
    expect(() => old.open(resealed, context)).toThrow(TokenDecryptionError);
    expect(rotated.keyIds).toEqual([tokenKeyId(key), tokenKeyId(otherKey)]);
  });

  it('treats plain text (rows of earlier versions) as not sealed', () => {
    expect(isSealed(token)).toBe(false);
    expect(sealedKeyId(token)).toBeNull();
    expect(() => new TokenCipher(key).open(token, context)).toThrow(/not in the encrypted form/);
  });
});

describe('parseTokenKey', () => {
  it('reads 32 bytes as hex, base64 or base64url', () => {
    expect(parseTokenKey(key.toString('hex'))).toEqual(key);
    expect(parseTokenKey(key.toString('base64'))).toEqual(key);
    expect(parseTokenKey(` ${key.toString('base64url')}\n`)).toEqual(key);
  });

  it('refuses anything else with how to make a key', () => {
    for (const bad of [
      '',
      'secret',
      randomBytes(16).toString('base64'),
      randomBytes(31).toString('hex'),
      randomBytes(33).toString('base64'),
      `${key.toString('base64').slice(0, 40)}!!!=`,
    ]) {
      expect(() => parseTokenKey(bad)).toThrow(TokenKeyFormatError);
      expect(() => parseTokenKey(bad)).toThrow(/openssl rand -base64 32/);
    }
  });
});
