import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';

export interface FakeS3Request {
  method: string;
  host: string;
  url: string;
  /** The Range header, when the client asked for part of an object (a browser's media requests do). */
  range?: string;
}

/**
 * A local S3-compatible server speaking S3's REST wire format (XML bodies and errors, SigV4
 * signatures checked against the S3RVER/S3RVER key pair, Range reads): the maintained fork of
 * s3rver, in-process, on a temp directory. Buckets are addressed path-style only
 * (`http://localhost:port/bucket/key`), and every request is logged, so a test can see how the
 * client addressed it.
 */
export async function startFakeS3(buckets: string[]): Promise<{
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  requests: FakeS3Request[];
  close(): Promise<void>;
}> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-fake-s3-'));
  const s3 = new S3rver({
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  await s3.configureBuckets();
  const requests: FakeS3Request[] = [];
  const handle = s3.callback();
  const server = http.createServer((req, res) => {
    requests.push({
      method: req.method ?? '',
      host: req.headers.host ?? '',
      url: req.url ?? '',
      ...(req.headers.range ? { range: req.headers.range } : {}),
    });
    void handle(req, res);
  });
  // `localhost`, not an IP: the SDK addresses an IP endpoint path-style whatever it is told, so only
  // a host name shows that path-style addressing was chosen by our configuration.
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://localhost:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
