import path from 'node:path';
import { optionalSetting } from '../validation.ts';
import { z } from 'zod';

/**
 * Video settings, read from the environment once at start (merged into src/config.ts by the
 * composition root). With `S3_BUCKET` set, videos go to S3-compatible storage; otherwise to local
 * disk under `$DATA_DIR/videos`.
 */

const booleanText = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

export const videoEnvironmentSchema = z.object({
  /**
   * 200 MiB, the team's decision (docs/design.md). Two minutes at a phone's higher settings exceed it
   * (1080p30 at ~17 Mbit/s is ~255 MB, 4K60 HEVC ~800 MB): the record page then says to record in HD
   * rather than 4K, or a shorter one; a store that wants such files raises it (up to 5 GiB).
   */
  VIDEO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(5 * 1024 ** 3)
    .default(200 * 1024 * 1024),
  /** Longest accepted video: the record page counts down to it, processing refuses anything longer. */
  VIDEO_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 60)
    .default(120),
  /** Longest thank-you reply video (src/thanks/): shorter than the gift, checked the same way. */
  THANKS_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 60)
    .default(60),
  /**
   * How long after the recipient's (latest) reply the sender's e-mail waits: the recipient can
   * replace a hasty reply until it goes out. 0 sends at once.
   */
  THANKS_SEND_DELAY_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(300),
  /** The playback rendition's long side in pixels (docs/videos.md). */
  VIDEO_MAX_LONG_SIDE: z.coerce.number().int().min(240).max(3840).default(1280),
  /** The wall clock one transcode may take before it is killed and the upload fails with the reason. */
  VIDEO_TRANSCODE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(6 * 3600)
    .default(600),
  /** Videos one worker process transcodes at once: transcoding is CPU-bound, one per core is the most. */
  VIDEO_PROCESSING_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** Days after a video was sent that its original upload is kept (the rendition stays); 0 keeps it until the order is erased. */
  VIDEO_ORIGINAL_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** Hours an unfinished resumable upload is kept for its page to continue it (src/videos/uploads/resumable-uploads.ts). */
  VIDEO_UPLOAD_RESUME_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24)
    .default(24),
  RECORD_UPLOADS_PER_ORDER_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(20),
  RECORD_UPLOADS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(120),
  S3_BUCKET: optionalSetting,
  /** An S3-compatible endpoint (MinIO, R2, …); unset means AWS itself. */
  S3_ENDPOINT: optionalSetting.pipe(z.url().optional()),
  /**
   * The endpoint as browsers reach it, for the presigned video URLs, when it differs from the one
   * this process uses (compose: `http://minio:9000` inside, `http://localhost:9000` outside).
   */
  S3_PUBLIC_ENDPOINT: optionalSetting.pipe(z.url().optional()),
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalSetting,
  S3_SECRET_ACCESS_KEY: optionalSetting,
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. Default: on when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: booleanText.optional(),
  /** How long a watch link's presigned video URL stays valid; short, the page asks again on every load. */
  S3_PRESIGNED_URL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(300),
});

export interface S3StorageConfig {
  bucket: string;
  endpoint: string | undefined;
  /** S3_PUBLIC_ENDPOINT: what presigned URLs point at; undefined → `endpoint`. */
  publicEndpoint?: string | undefined;
  region: string;
  /** Both set, or both undefined (then the SDK's default credential chain is used). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** Lifetime of the presigned URLs `/watch/{uuid}/video` redirects to (S3's maximum is 7 days). */
  presignedUrlSeconds: number;
}

export interface VideoConfig {
  /** Largest accepted upload; larger is 413. */
  maxBytes: number;
  /** Longest accepted video (VIDEO_MAX_SECONDS); a longer one fails processing with the reason. */
  maxSeconds: number;
  /** The recipient's thank-you reply: THANKS_MAX_SECONDS and THANKS_SEND_DELAY_SECONDS. */
  thanks: { maxSeconds: number; sendDelaySeconds: number };
  /** The public record page's upload budget per hour (src/videos/uploads/upload-limit.ts). */
  uploadLimits: { perOrderPerHour: number; perClientIpPerHour: number };
  /** The playback rendition (src/videos/rendition/): its size cap, a transcode's deadline, per-worker concurrency. */
  rendition: { maxLongSide: number; timeoutMs: number; concurrency: number };
  /** VIDEO_ORIGINAL_RETENTION_DAYS: 0 keeps originals until the order is erased. */
  originalRetentionDays: number;
  /** The pages' resumable uploads: where unfinished ones collect (`DATA_DIR/uploads`, always local disk) and for how long. */
  resumable: { directory: string; expiryMs: number };
  storage: { kind: 'local'; directory: string } | ({ kind: 's3' } & S3StorageConfig);
}

export class VideoConfigError extends Error {
  override name = 'VideoConfigError';
}

/** `dataDir` is the already-resolved DATA_DIR of the main configuration. */
export function loadVideoConfig(env: NodeJS.ProcessEnv, dataDir: string): VideoConfig {
  const parsed = videoEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new VideoConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  }
  const value = parsed.data;
  const thanks = { maxSeconds: value.THANKS_MAX_SECONDS, sendDelaySeconds: value.THANKS_SEND_DELAY_SECONDS };
  const uploadLimits = {
    perOrderPerHour: value.RECORD_UPLOADS_PER_ORDER_PER_HOUR,
    perClientIpPerHour: value.RECORD_UPLOADS_PER_IP_PER_HOUR,
  };
  const rendition = {
    maxLongSide: value.VIDEO_MAX_LONG_SIDE,
    timeoutMs: value.VIDEO_TRANSCODE_TIMEOUT_SECONDS * 1000,
    concurrency: value.VIDEO_PROCESSING_CONCURRENCY,
  };
  const originalRetentionDays = value.VIDEO_ORIGINAL_RETENTION_DAYS;
  const resumable = { directory: path.join(dataDir, 'uploads'), expiryMs: value.VIDEO_UPLOAD_RESUME_HOURS * 3600_000 };
  if ((value.S3_ACCESS_KEY_ID === undefined) !== (value.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new VideoConfigError(
      'Invalid configuration in the environment:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together.',
    );
  }
  if (!value.S3_BUCKET) {
    if (value.S3_ENDPOINT || value.S3_PUBLIC_ENDPOINT || value.S3_ACCESS_KEY_ID) {
      throw new VideoConfigError(
        'Invalid configuration in the environment:\n  S3_BUCKET: is required when other S3_ settings are given.',
      );
    }
    return {
      maxBytes: value.VIDEO_MAX_BYTES,
      maxSeconds: value.VIDEO_MAX_SECONDS,
      thanks,
      uploadLimits,
      rendition,
      originalRetentionDays,
      resumable,
      storage: { kind: 'local', directory: path.join(dataDir, 'videos') },
    };
  }
  return {
    maxBytes: value.VIDEO_MAX_BYTES,
    maxSeconds: value.VIDEO_MAX_SECONDS,
    thanks,
    uploadLimits,
    rendition,
    originalRetentionDays,
    resumable,
    storage: {
      kind: 's3',
      bucket: value.S3_BUCKET,
      endpoint: value.S3_ENDPOINT,
      ...(value.S3_PUBLIC_ENDPOINT ? { publicEndpoint: value.S3_PUBLIC_ENDPOINT } : {}),
      region: value.S3_REGION,
      credentials:
        value.S3_ACCESS_KEY_ID && value.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: value.S3_ACCESS_KEY_ID, secretAccessKey: value.S3_SECRET_ACCESS_KEY }
          : undefined,
      forcePathStyle: value.S3_FORCE_PATH_STYLE ?? value.S3_ENDPOINT !== undefined,
      presignedUrlSeconds: value.S3_PRESIGNED_URL_SECONDS,
    },
  };
}

/** Safe to log: no secrets. */
export function describeVideoConfig(config: VideoConfig): Record<string, unknown> {
  const { storage } = config;
  return {
    maxBytes: config.maxBytes,
    maxSeconds: config.maxSeconds,
    thanks: config.thanks,
    rendition: config.rendition,
    originalRetentionDays: config.originalRetentionDays,
    resumableUploads: `${config.resumable.directory}, kept ${config.resumable.expiryMs / 3600_000} h`,
    storage:
      storage.kind === 'local'
        ? `local disk in ${storage.directory}`
        : `s3://${storage.bucket} via ${storage.endpoint ?? 'AWS'} (${storage.region})`,
  };
}
