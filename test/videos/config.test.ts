import { describe, expect, it } from 'vitest';
import { loadVideoConfig, VideoConfigError } from '../../src/videos/config.ts';

describe('video configuration', () => {
  it('defaults to local disk under DATA_DIR/videos, a 200 MB (docs/design.md) and a 2-minute limit, a 1280 px rendition', () => {
    expect(loadVideoConfig({}, '/srv/data')).toEqual({
      maxBytes: 200 * 1024 * 1024,
      maxSeconds: 120,
      thanks: { maxSeconds: 60, sendDelaySeconds: 300 },
      uploadLimits: { perOrderPerHour: 20, perClientIpPerHour: 120 },
      rendition: { maxLongSide: 1280, timeoutMs: 600_000, concurrency: 1 },
      originalRetentionDays: 30,
      // Unfinished page uploads stay on local disk even with S3 storage, for a day.
      resumable: { directory: '/srv/data/uploads', expiryMs: 24 * 3_600_000 },
      storage: { kind: 'local', directory: '/srv/data/videos' },
    });
  });

  it('uses S3-compatible storage when S3_BUCKET is set, path-style with a custom endpoint', () => {
    const config = loadVideoConfig(
      {
        S3_BUCKET: 'videos',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'secret',
        VIDEO_MAX_BYTES: '1000',
        VIDEO_MAX_SECONDS: '30',
        THANKS_MAX_SECONDS: '20',
        THANKS_SEND_DELAY_SECONDS: '0',
        VIDEO_MAX_LONG_SIDE: '720',
        VIDEO_TRANSCODE_TIMEOUT_SECONDS: '60',
        VIDEO_PROCESSING_CONCURRENCY: '2',
        VIDEO_ORIGINAL_RETENTION_DAYS: '0',
        VIDEO_UPLOAD_RESUME_HOURS: '2',
      },
      '/srv/data',
    );
    expect(config).toEqual({
      maxBytes: 1000,
      maxSeconds: 30,
      thanks: { maxSeconds: 20, sendDelaySeconds: 0 },
      uploadLimits: { perOrderPerHour: 20, perClientIpPerHour: 120 },
      rendition: { maxLongSide: 720, timeoutMs: 60_000, concurrency: 2 },
      originalRetentionDays: 0,
      resumable: { directory: '/srv/data/uploads', expiryMs: 2 * 3_600_000 },
      storage: {
        kind: 's3',
        bucket: 'videos',
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        forcePathStyle: true,
        presignedUrlSeconds: 300,
      },
    });
  });

  it.each([
    [{ VIDEO_MAX_BYTES: 'lots' }, 'VIDEO_MAX_BYTES'],
    [{ VIDEO_MAX_SECONDS: '0' }, 'VIDEO_MAX_SECONDS'],
    [{ S3_BUCKET: 'b', S3_PRESIGNED_URL_SECONDS: '0' }, 'S3_PRESIGNED_URL_SECONDS'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together'],
    [{ S3_ENDPOINT: 'http://minio:9000' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'b', S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT'],
  ])('names the bad setting in %j', (env, named) => {
    expect(() => loadVideoConfig(env, '/srv/data')).toThrow(VideoConfigError);
    expect(() => loadVideoConfig(env, '/srv/data')).toThrow(named);
  });
});
