import type { VideoConfig } from '../config.ts';
import { LocalDiskStorage } from './local-disk-storage.ts';
import { S3Storage } from './s3-storage.ts';
import type { VideoStorage } from './storage.ts';

export function createVideoStorage(config: VideoConfig): VideoStorage {
  return config.storage.kind === 'local'
    ? new LocalDiskStorage(config.storage.directory)
    : new S3Storage(config.storage);
}
