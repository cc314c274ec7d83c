import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Shopify access and refresh tokens at rest: AES-256-GCM under a key from the environment
 * (TOKEN_ENCRYPTION_KEY, docs/operations.md "Shopify token encryption key").
 *
 * A stored value describes itself: `enc:v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url parts), where
 * `keyId` is the first 8 hex characters of the key's SHA-256. The id names the key a value was
 * written with, so values under a previous key keep working until they are rotated, and a missing
 * key is named in the error instead of failing as "bad decrypt". The id reveals nothing usable
 * about a 256-bit random key.
 *
 * Every value gets a fresh random 12-byte IV (GCM's standard nonce; reusing one under a key would
 * leak the XOR of two plaintexts and the authentication key). The caller's `context` (the shop and
 * column) is authenticated as associated data: a value copied into another shop's row or the other
 * column does not open there.
 */
export const VERSION_PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class TokenKeyFormatError extends Error {
  override name = 'TokenKeyFormatError';
}

/** A stored token that cannot be opened. Its message names key ids only, never a key or a token. */
export class TokenDecryptionError extends Error {
  override name = 'TokenDecryptionError';
}

export const TOKEN_KEY_FORMAT =
  'must be 32 random bytes written as base64 (44 characters) or hex (64 characters); make one with `openssl rand -base64 32`';

/** Reads a key as written in the environment or the key file: 32 bytes as hex or base64 (standard or url-safe). */
export function parseTokenKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  // Buffer's base64 decoder skips what it does not know; check the shape first so a typo is refused.
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new TokenKeyFormatError(TOKEN_KEY_FORMAT);
}

/** The first 8 hex characters of the key's SHA-256: tells keys apart in stored values and messages. */
export function tokenKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Whether a stored value is in the encrypted form (rows of versions before encryption hold plain text). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(VERSION_PREFIX);
}

/** The id of the key a sealed value was written with; null for plain text or a value of an unknown form. */
export function sealedKeyId(stored: string): string | null {
  if (!isSealed(stored)) return null;
  return stored.slice(VERSION_PREFIX.length).split(':')[0] || null;
}

export class TokenCipher {
  readonly currentKeyId: string;
  readonly #current: Buffer;
  readonly #keys: Map<string, Buffer>;

  /** `current` seals every new value; `previous` keys only open values written before a rotation. */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous])
      if (key.length !== KEY_BYTES) throw new TokenKeyFormatError(`a token key must be ${KEY_BYTES} bytes`);
    this.#current = current;
    this.currentKeyId = tokenKeyId(current);
    this.#keys = new Map([[this.currentKeyId, current]]);
    for (const key of previous) {
      const id = tokenKeyId(key);
      const known = this.#keys.get(id);
      // The same key listed twice is harmless; two different keys with one id would make values ambiguous.
      if (known && !known.equals(key))
        throw new TokenKeyFormatError(`two different token keys share the id ${id}; generate a new key`);
      this.#keys.set(id, key);
    }
  }

  /** The ids of every key this cipher opens, current first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION_PREFIX}${this.currentKeyId}:${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join(':')}`;
  }

  open(stored: string, context: string): string {
    if (!isSealed(stored)) throw new TokenDecryptionError('The stored token is not in the encrypted form (enc:v1:…).');
    const parts = stored.slice(VERSION_PREFIX.length).split(':');
    const [keyId, ivText, tagText, ciphertextText] = parts;
    if (parts.length !== 4 || !keyId || !ivText || !tagText || ciphertextText === undefined)
      throw new TokenDecryptionError(
        'The stored token is malformed (expected enc:v1:<keyId>:<iv>:<tag>:<ciphertext>).',
      );
    const key = this.#keys.get(keyId);
    if (!key)
      throw new TokenDecryptionError(
        `The stored token was encrypted with key ${keyId}, which this process does not have ` +
          `(TOKEN_ENCRYPTION_KEY is ${this.currentKeyId}` +
          `${this.#keys.size > 1 ? `; TOKEN_ENCRYPTION_PREVIOUS_KEYS are ${this.keyIds.slice(1).join(', ')}` : ''}). ` +
          'Set TOKEN_ENCRYPTION_KEY, or add the old key to TOKEN_ENCRYPTION_PREVIOUS_KEYS, to the key it was written with.',
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new TokenDecryptionError(`The stored token under key ${keyId} is malformed (IV or tag of the wrong size).`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      // GCM's tag check failed: the value was altered, or belongs to another shop or column.
      throw new TokenDecryptionError(
        `The stored token under key ${keyId} failed its integrity check: it was altered, or copied from another shop's row.`,
      );
    }
  }

  /** Whether a stored value is sealed under the current key (nothing for a rotation to do). */
  isCurrent(stored: string): boolean {
    return sealedKeyId(stored) === this.currentKeyId;
  }
}
