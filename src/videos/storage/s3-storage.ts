import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3StorageConfig } from '../config.ts';
import { assertSafeKey, VideoNotStoredError, type ByteRange, type StoredVideo, type VideoStorage } from './storage.ts';

/**
 * Videos in an S3-compatible bucket. PutObject needs the length up front and an upload's length is
 * only known once it is read, so a streamed body is first spooled to a temporary file (the upload
 * route has already bounded its size); a Buffer goes straight up.
 */
export class S3Storage implements VideoStorage {
  private readonly client: S3Client;
  /** Signs the URLs browsers fetch: the same as `client` unless S3_PUBLIC_ENDPOINT names another host. */
  private readonly presigner: S3Client;

  constructor(
    private readonly config: S3StorageConfig,
    client?: S3Client,
  ) {
    this.client = client ?? S3Storage.clientFor(config, config.endpoint);
    this.presigner =
      config.publicEndpoint && config.publicEndpoint !== config.endpoint
        ? S3Storage.clientFor(config, config.publicEndpoint)
        : this.client;
  }

  private static clientFor(config: S3StorageConfig, endpoint: string | undefined): S3Client {
    return new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      // S3-compatible servers: the SDK's default flexible checksums send a streamed body as
      // aws-chunked with a trailing checksum (STREAMING-UNSIGNED-PAYLOAD-TRAILER), which many of
      // them refuse; checksums only where the operation requires one, as before SDK 3.729.
      ...(endpoint
        ? {
            endpoint,
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }
        : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    });
  }

  async put(key: string, body: Readable | Buffer, contentType: string): Promise<{ size: number }> {
    assertSafeKey(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: key,
          Body: body,
          ContentLength: body.length,
          ContentType: contentType,
        }),
      );
      return { size: body.length };
    }
    const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'doorstep-s3-'));
    const spool = path.join(directory, randomUUID());
    try {
      await pipeline(body, fs.createWriteStream(spool, { mode: 0o600 }));
      const { size } = await fs.promises.stat(spool);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: key,
          Body: fs.createReadStream(spool),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
      return { size };
    } finally {
      await fs.promises.rm(directory, { recursive: true, force: true });
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredVideo> {
    assertSafeKey(key);
    try {
      const response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.config.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const total = range ? totalFromContentRange(response.ContentRange) : response.ContentLength;
      if (total === undefined || !(response.Body instanceof Readable))
        throw new Error(`S3 answered GetObject for "${key}" without a body or size.`);
      return { stream: response.Body, size: total, contentType: response.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      // A 404 for a missing bucket is a misconfiguration, not a missing video: it must not mark
      // uploads failed for good, so only a missing key is VideoNotStoredError.
      if (
        error instanceof NoSuchKey ||
        (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404 && error.name !== 'NoSuchBucket')
      )
        throw new VideoNotStoredError(key);
      throw error;
    }
  }

  /**
   * A presigned GET (query-string SigV4), valid for `presignedUrlSeconds`. Signing is local; the
   * object's stored Content-Type comes back with it, and S3 answers Range requests itself.
   */
  async directUrl(key: string): Promise<URL | null> {
    assertSafeKey(key);
    const url = await getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.config.bucket, Key: key }), {
      expiresIn: this.config.presignedUrlSeconds,
    });
    return new URL(url);
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }
}

function totalFromContentRange(contentRange: string | undefined): number | undefined {
  const match = /\/(\d+)$/.exec(contentRange ?? '');
  return match?.[1] ? Number(match[1]) : undefined;
}
