import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, VideoNotStoredError, type ByteRange, type StoredVideo, type VideoStorage } from './storage.ts';

/**
 * Videos as files under one directory (`$DATA_DIR/videos` by default), with the content type in a
 * small sidecar file. A put writes to a temporary name and renames it into place, so a reader never
 * sees half a video and a failed upload leaves nothing behind.
 */
export class LocalDiskStorage implements VideoStorage {
  constructor(private readonly directory: string) {}

  async put(key: string, body: Readable | Buffer, contentType: string): Promise<{ size: number }> {
    const file = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${randomUUID()}.partial`;
    try {
      await pipeline(
        Buffer.isBuffer(body) ? Readable.from([body]) : body,
        fs.createWriteStream(temporary, { mode: 0o600 }),
      );
      await fs.promises.writeFile(`${file}.meta.json`, JSON.stringify({ contentType }), { mode: 0o600 });
      await fs.promises.rename(temporary, file);
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
    return { size: (await fs.promises.stat(file)).size };
  }

  async get(key: string, range?: ByteRange): Promise<StoredVideo> {
    const file = this.pathOf(key);
    let size: number;
    let contentType: string;
    try {
      size = (await fs.promises.stat(file)).size;
      contentType = (JSON.parse(await fs.promises.readFile(`${file}.meta.json`, 'utf8')) as { contentType: string })
        .contentType;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new VideoNotStoredError(key);
      throw error;
    }
    const stream = fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
    return { stream, size, contentType };
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await fs.promises.rm(file, { force: true });
    await fs.promises.rm(`${file}.meta.json`, { force: true });
  }

  private pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.directory, ...key.split('/'));
  }

  /** Files on this machine's disk have no URL of their own: the watch route streams them. */
  async directUrl(): Promise<URL | null> {
    return null;
  }
}
