import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage } from '../../src/videos/storage/s3-storage.ts';
import { VideoNotStoredError } from '../../src/videos/storage/storage.ts';
import { startFakeS3 } from '../support/fake-s3.ts';
import { validOrder } from '../support/test-app.ts';
import { fixture, s3VideoEnv, startVideoTestApp } from './video-test-app.ts';

// S3Storage with the real @aws-sdk/client-s3 against a local S3-compatible server (wire format,
// signatures, Range), the way a MinIO or R2 deployment configures it: endpoint + path-style.
const BUCKET = 'doorstep-videos';
let s3: Awaited<ReturnType<typeof startFakeS3>>;
let storage: S3Storage;

beforeAll(async () => {
  s3 = await startFakeS3([BUCKET]);
  storage = new S3Storage({
    bucket: BUCKET,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: s3.credentials,
    forcePathStyle: true,
    presignedUrlSeconds: 300,
  });
});
afterAll(() => s3.close());

const key = () => `ord_${randomBytes(6).toString('hex')}/vid_${randomBytes(6).toString('hex')}`;

describe('S3Storage against an S3-compatible server', () => {
  it('stores a Buffer and reads back the same bytes, size and content type, addressed path-style', async () => {
    const name = key();
    const bytes = randomBytes(70_000);
    const from = s3.requests.length;
    expect(await storage.put(name, bytes, 'video/webm')).toEqual({ size: bytes.length });
    const stored = await storage.get(name);
    expect(stored.size).toBe(bytes.length);
    expect(stored.contentType).toBe('video/webm');
    expect((await buffer(stored.stream)).equals(bytes)).toBe(true);
    // The bucket is in the path and not in the Host: what forcePathStyle is for.
    expect(s3.requests.slice(from).map((r) => `${r.method} ${r.host} ${r.url.split('?')[0]}`)).toEqual([
      `PUT ${new URL(s3.endpoint).host} /${BUCKET}/${name}`,
      `GET ${new URL(s3.endpoint).host} /${BUCKET}/${name}`,
    ]);
  });

  it('stores a stream of unknown length (spooled, then sent with its length)', async () => {
    const name = key();
    const parts = [randomBytes(1000), randomBytes(64 * 1024), randomBytes(7)];
    expect(await storage.put(name, Readable.from(parts), 'video/mp4')).toEqual({ size: 66_543 });
    const stored = await storage.get(name);
    expect(stored.contentType).toBe('video/mp4');
    expect((await buffer(stored.stream)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('reads a byte range, reporting the size of the whole object', async () => {
    const name = key();
    const bytes = randomBytes(5_000);
    await storage.put(name, bytes, 'video/webm');
    const middle = await storage.get(name, { start: 100, end: 199 });
    expect(middle.size).toBe(5_000);
    expect((await buffer(middle.stream)).equals(bytes.subarray(100, 200))).toBe(true);
    const last = await storage.get(name, { start: 4_999, end: 4_999 });
    expect((await buffer(last.stream)).equals(bytes.subarray(4_999))).toBe(true);
    const range = s3.requests.filter((r) => r.method === 'GET' && r.url.startsWith(`/${BUCKET}/${name}`));
    expect(range).toHaveLength(2);
  });

  it('says VideoNotStoredError for a key that is not there, and after delete; deleting twice is fine', async () => {
    await expect(storage.get(key())).rejects.toBeInstanceOf(VideoNotStoredError);
    await expect(storage.get(key(), { start: 0, end: 9 })).rejects.toBeInstanceOf(VideoNotStoredError);
    const name = key();
    await storage.put(name, Buffer.from('bytes'), 'video/webm');
    await storage.delete(name);
    await expect(storage.get(name)).rejects.toBeInstanceOf(VideoNotStoredError);
    await storage.delete(name);
  });

  it('does not mistake a missing bucket for a missing video (a misconfiguration must not fail uploads for good)', async () => {
    const elsewhere = new S3Storage({
      bucket: `no-such-bucket-${randomUUID().slice(0, 8)}`,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      credentials: s3.credentials,
      forcePathStyle: true,
      presignedUrlSeconds: 300,
    });
    const error = await elsewhere.get(key()).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(VideoNotStoredError);
    expect(error).toMatchObject({ name: 'NoSuchBucket' });
  });

  it('is refused with credentials the server does not know (the requests are really signed)', async () => {
    const intruder = new S3Storage({
      bucket: BUCKET,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'wrong' },
      forcePathStyle: true,
      presignedUrlSeconds: 300,
    });
    await expect(intruder.put(key(), Buffer.from('x'), 'video/webm')).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
    });
  });

  it('hands out presigned GET URLs that S3 honours, Range included, and refuses once tampered with', async () => {
    const name = key();
    const bytes = randomBytes(4_000);
    await storage.put(name, bytes, 'video/webm');
    const url = (await storage.directUrl(name))!;
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    const partial = await fetch(url, { headers: { Range: 'bytes=10-19' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-type')).toBe('video/webm');
    expect(Buffer.from(await partial.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);

    const tampered = new URL(url);
    tampered.pathname = tampered.pathname.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'));
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('signs for S3_PUBLIC_ENDPOINT when browsers reach the store under another name than we do', async () => {
    const behindCompose = new S3Storage({
      bucket: BUCKET,
      endpoint: s3.endpoint,
      publicEndpoint: 'http://videos.example.test:9000',
      region: 'us-east-1',
      credentials: s3.credentials,
      forcePathStyle: true,
      presignedUrlSeconds: 60,
    });
    const url = (await behindCompose.directUrl('ord_1/vid_1'))!;
    expect(`${url.origin}${url.pathname}`).toBe(`http://videos.example.test:9000/${BUCKET}/ord_1/vid_1`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('refuses keys that are not `{orderId}/{videoId}`-like before any request', async () => {
    const from = s3.requests.length;
    await expect(storage.put('../etc/passwd', Buffer.from('x'), 'video/webm')).rejects.toThrow(/Unsafe storage key/);
    await expect(storage.get('a//b')).rejects.toThrow(/Unsafe storage key/);
    expect(s3.requests.length).toBe(from);
  });
});

describe('the app with S3_BUCKET set', () => {
  it('stores an upload in the bucket, processes it from there, and serves the watch page’s Range requests from it', async () => {
    const webm = fixture('recorded-vp8-opus.webm');
    const app = await startVideoTestApp({ queue: 'manual', env: s3VideoEnv(s3, BUCKET) });
    try {
      const store = await app.createAccount();
      const order = (await store.request('POST', '/v1/orders', validOrder)).body;
      const from = s3.requests.length;
      expect(
        (await store.request('PUT', `/v1/orders/${order.id}/video`, webm, { 'Content-Type': 'video/webm' })).status,
      ).toBe(200);
      expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
      // The upload; processing reads it, stores the playback rendition and its poster frame, and
      // deletes the page's own poster by its key (none here: a delete of nothing, which S3 allows).
      expect(s3.requests.slice(from).map((r) => r.method)).toEqual(['PUT', 'GET', 'PUT', 'PUT', 'DELETE']);

      // The watch route hands the browser a short-lived presigned URL instead of streaming through Node.
      const watchUrl = `${app.baseUrl}/watch/${order.uuid}/video`;
      for (const method of ['GET', 'HEAD']) {
        const redirect = await fetch(watchUrl, { method, redirect: 'manual' });
        expect(redirect.status).toBe(302);
        expect(redirect.headers.get('cache-control')).toBe('no-store');
        const location = new URL(redirect.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toMatch(
          new RegExp(`^${s3.endpoint}/${BUCKET}/${order.id}/vid_[A-Za-z0-9]+-playback$`),
        );
        expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
        expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      }
      // The page lets its player follow the redirect, and only there.
      const page = await fetch(`${app.baseUrl}/watch/${order.uuid}`);
      expect(page.headers.get('content-security-policy')).toContain(`media-src 'self' blob: ${s3.endpoint};`);

      // Following it, object storage answers the Range request itself, from the rendition.
      const playback = Buffer.from(await (await fetch(watchUrl)).arrayBuffer());
      expect(playback.toString('latin1', 4, 8)).toBe('ftyp');
      const partial = await fetch(watchUrl, { headers: { Range: 'bytes=100-199' } });
      expect(partial.status).toBe(206);
      expect(partial.headers.get('content-range')).toBe(`bytes 100-199/${playback.length}`);
      expect(Buffer.from(await partial.arrayBuffer()).equals(playback.subarray(100, 200))).toBe(true);
      expect(s3.requests.at(-1)).toMatchObject({
        method: 'GET',
        url: expect.stringMatching(new RegExp(`^/${BUCKET}/${order.id}/`)),
      });
    } finally {
      await app.close();
    }
  });
});
