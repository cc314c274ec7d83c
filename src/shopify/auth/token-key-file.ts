import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../../config.ts';
import { readOrCreateSecretFile } from '../../process/private-dir.ts';
import { parseTokenKey, TokenCipher, TokenKeyFormatError } from './token-cipher.ts';

export const TOKEN_KEY_FILE = 'token-encryption-key';

/**
 * The key Shopify tokens are sealed with. TOKEN_ENCRYPTION_KEY wins. Without it (allowed only in
 * development, where the processes share one DATA_DIR: src/config.ts refuses production without a
 * key) a random key is generated once into `DATA_DIR/token-encryption-key`, readable by its owner
 * only, and reused on every start, so `npm start` needs no setup. The file is as precious as the
 * database next to it: without it the stored tokens cannot be read (merchants then reconnect by
 * opening the app).
 */
export function resolveTokenKey(config: Pick<Config, 'tokenEncryption' | 'dataDir'>): {
  key: Buffer;
  /** The file the key was read from (or generated into); null when it came from the environment. */
  keyFile: string | null;
  generated: boolean;
} {
  if (config.tokenEncryption.key) return { key: config.tokenEncryption.key, keyFile: null, generated: false };
  const { text, file, generated } = readOrCreateSecretFile(config.dataDir, TOKEN_KEY_FILE, () =>
    randomBytes(32).toString('base64'),
  );
  try {
    return { key: parseTokenKey(text), keyFile: file, generated };
  } catch (error) {
    if (!(error instanceof TokenKeyFormatError)) throw error;
    throw new ConfigError(
      `${file} does not hold a token encryption key: it ${error.message}. Restore it from a backup, or set TOKEN_ENCRYPTION_KEY.`,
    );
  }
}

/** The cipher of this process: the resolved current key and TOKEN_ENCRYPTION_PREVIOUS_KEYS. */
export function tokenCipherFor(config: Pick<Config, 'tokenEncryption' | 'dataDir'>): TokenCipher {
  return new TokenCipher(resolveTokenKey(config).key, config.tokenEncryption.previousKeys);
}
