import type { Readable } from 'node:stream';

/** An inclusive byte range, as HTTP Range requests count (`bytes=0-99` is 100 bytes). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredVideo {
  /** The requested range of bytes (or all of them). */
  stream: Readable;
  /** The size of the whole object, not of the range. */
  size: number;
  contentType: string;
}

/**
 * Where video bytes live: local disk by default, S3-compatible storage when configured
 * (docs/design.md §2 "Videos"). Keys are opaque paths chosen by the caller (`{orderId}/{videoId}`).
 */
export interface VideoStorage {
  put(key: string, body: Readable | Buffer, contentType: string): Promise<{ size: number }>;
  /** Throws VideoNotStoredError for an unknown key. */
  get(key: string, range?: ByteRange): Promise<StoredVideo>;
  /** Deleting an unknown key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A short-lived URL a browser can fetch the bytes from itself (Range requests included), so they
   * do not pass through Node; null when the storage has none (local disk: the route streams).
   */
  directUrl(key: string): Promise<URL | null>;
}

export class VideoNotStoredError extends Error {
  override name = 'VideoNotStoredError';
  constructor(readonly key: string) {
    super(`No stored video under "${key}".`);
  }
}

/** Keys become file paths and URLs: allow only what `{orderId}/{videoId}` needs. */
export function assertSafeKey(key: string): void {
  if (
    !/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) ||
    key.split('/').some((part) => part === '..' || part === '.')
  ) {
    throw new Error(`Unsafe storage key "${key}".`);
  }
}
