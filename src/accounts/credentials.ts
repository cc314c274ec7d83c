import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * App ids and API keys. A key is 256 random bits, shown once and stored only as its SHA-256:
 * with that much entropy a slow password hash adds nothing, and lookups stay fast.
 */
export function generateAppId(): string {
  return `app_${randomBytes(10).toString('hex')}`;
}

export function generateApiKey(): string {
  return `dsk_${randomBytes(32).toString('base64url')}`;
}

/**
 * What may be shown of a key after it was issued: its prefix and last four characters. Four of
 * 43 random base64url characters (24 of 256 bits) tell keys apart without weakening the rest.
 */
export function apiKeyHint(apiKey: string): string {
  return `dsk_…${apiKey.slice(-4)}`;
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented key against a stored hash. */
export function apiKeyMatches(presentedKey: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(presentedKey), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Parses an `Authorization: Basic …` header into its user and password, or null. */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // A NUL can never be part of an app id or key (and PostgreSQL cannot compare it): not credentials.
  if (colon < 0 || decoded.includes('\u0000')) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
