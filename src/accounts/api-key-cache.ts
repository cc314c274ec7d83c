/**
 * How long an authenticated API key is trusted without asking the database. A key rotated in this
 * process stops working at once (`forgetAccount`); in another process (a second web process) the
 * old key may still work for up to this long. docs/api.md says so.
 */
export const API_KEY_CACHE_TTL_MS = 30_000;

/** Enough for every active account of a large deployment; the oldest entry makes room. */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/** What the cache keeps of an account: anything with its id (the account, as `authenticate` returns it). */
interface Entry<A extends { id: string }> {
  account: A;
  expiresAt: number;
}

/*
 * Rotation happens in modules that hold only a database handle (the Shopify install, the admin's
 * "rotate key"), not a cache. Every cache of this process is told, whichever module rotated: the
 * caches register here, weakly, so a closed app's cache is not kept alive by the list.
 */
const liveCaches = new Set<WeakRef<ApiKeyCache<{ id: string }>>>();

/** Drops every cached credential of the account in this process (its key was rotated or revoked). */
export function forgetAccountCredentials(accountId: string): void {
  for (const ref of liveCaches) {
    const cache = ref.deref();
    if (cache) cache.forgetAccount(accountId);
    else liveCaches.delete(ref);
  }
}

/**
 * Accounts whose credentials were checked recently, keyed by app id and the key's SHA-256 (never
 * the key). Only successes are kept: a key issued a moment ago must work at once, and a wrong key
 * must not fill the cache. Bounded in size and in age.
 */
export class ApiKeyCache<A extends { id: string }> {
  private readonly entries = new Map<string, Entry<A>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.ttlMs = options.ttlMs ?? API_KEY_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? API_KEY_CACHE_MAX_ENTRIES;
    this.now = options.now ?? Date.now;
    liveCaches.add(new WeakRef(this));
  }

  get(appId: string, keyHash: string): A | undefined {
    const key = cacheKey(appId, keyHash);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.account;
  }

  set(appId: string, keyHash: string, account: A): void {
    const key = cacheKey(appId, keyHash);
    this.entries.delete(key);
    // A Map iterates in insertion order: the first key is the oldest entry.
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { account, expiresAt: this.now() + this.ttlMs });
  }

  forgetAccount(accountId: string): void {
    for (const [key, entry] of this.entries) if (entry.account.id === accountId) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

// A newline can be in neither an app id (parsed from Basic credentials up to the colon, then looked
// up) nor a hex hash, so two different pairs never make the same key.
function cacheKey(appId: string, keyHash: string): string {
  return `${appId}\n${keyHash}`;
}
