import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createServices, type Services } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { basicAuth } from '../../src/http/basic-auth.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { requestContext } from '../../src/http/request-context.ts';
import { createLogger } from '../../src/logger.ts';
import { orderRoutes } from '../../src/orders/routes.ts';
import { createRedisConnection } from '../../src/redis/connection.ts';
import { LocalDiskStorage } from '../../src/videos/local-disk-storage.ts';
import { videoApiRoutes, videoPageRoutes } from '../../src/videos/routes.ts';
import { VideoService, type VideoProcessingQueue } from '../../src/videos/service.ts';
import type { VideoStorage } from '../../src/videos/storage.ts';
import { bullmqVideoQueue, processVideoProcessor, VIDEO_PROCESSING_QUEUE } from '../../jobs/process-video.ts';
import { TestClock } from '../support/clock.ts';
import { openTestDatabase } from '../support/database.ts';
import type { TestAccount, TestResponse } from '../support/test-app.ts';

export interface VideoTestApp {
  baseUrl: string;
  services: Services;
  videos: VideoService;
  storage: VideoStorage;
  /** Video ids handed to the queue, in order. */
  enqueued: string[];
  createAccount(name?: string): Promise<TestAccount>;
  request(method: string, path: string, options?: { rawBody?: string | Buffer; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * The real HTTP app with the video routes mounted the way the composition root is asked to mount
 * them (request context → error handler → Basic auth on /v1 → video API → orders → public pages),
 * on a real database and local-disk storage in a temporary directory. `queue: 'bullmq'` processes
 * uploads with the real job processor on the run's Redis; `queue: 'manual'` only records what was
 * enqueued so a test can run processing itself, in the order it wants.
 */
export async function startVideoTestApp(options: { queue: 'bullmq' | 'manual'; maxBytes?: number; clock?: TestClock }): Promise<VideoTestApp> {
  const database = await openTestDatabase();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ PUBLIC_URL: 'https://doorstep.test', LOG_LEVEL: 'silent' });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const services = createServices(config, logger, database, { sandboxBaseUrl: `${baseUrl}/sandbox`, ...(options.clock ? { now: options.clock.now } : {}) });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-videos-'));
  const storage = new LocalDiskStorage(directory);

  const enqueued: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  let queue: VideoProcessingQueue = { enqueue: async (id) => void enqueued.push(id) };
  let videos: VideoService;
  if (options.queue === 'bullmq') {
    const prefix = `test-${randomUUID()}`;
    const producer = createRedisConnection(inject('redisUrl'), 'producer');
    const workerConnection = createRedisConnection(inject('redisUrl'), 'worker');
    const bull = new Queue(VIDEO_PROCESSING_QUEUE, { connection: producer, prefix });
    const real = bullmqVideoQueue(bull);
    queue = { enqueue: async (id) => (enqueued.push(id), real.enqueue(id)) };
    videos = new VideoService({ db: database.db, orders: services.orders, storage, queue, logger, ...(options.clock ? { now: options.clock.now } : {}) });
    const worker = new Worker(VIDEO_PROCESSING_QUEUE, processVideoProcessor(videos, logger), { connection: workerConnection, prefix, concurrency: 2 });
    closers.push(async () => {
      await worker.close();
      await bull.close();
      (producer as Redis).disconnect();
      (workerConnection as Redis).disconnect();
    });
  } else {
    videos = new VideoService({ db: database.db, orders: services.orders, storage, queue, logger, ...(options.clock ? { now: options.clock.now } : {}) });
  }

  const app = new Koa({ proxy: false });
  app.use(requestContext(logger));
  app.use(errorHandler);
  const authenticate = basicAuth(database.db);
  app.use(async (ctx, next) => (ctx.path === '/v1' || ctx.path.startsWith('/v1/') ? authenticate(ctx, next) : next()));
  const deps = { orders: services.orders, videos, storage, maxBytes: options.maxBytes ?? 200 * 1024 * 1024, publicUrl: config.publicUrl };
  const api = videoApiRoutes(deps);
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));
  const orders = orderRoutes(services.orders, config.publicUrl);
  app.use(orders.routes());
  app.use(orders.allowedMethods({ throw: true }));
  const pages = videoPageRoutes(deps);
  app.use(pages.routes());
  app.use(pages.allowedMethods({ throw: true }));
  server.on('request', app.callback());

  const request: VideoTestApp['request'] = async (method, urlPath, requestOptions = {}) => {
    const response = await fetch(`${baseUrl}${urlPath}`, { method, headers: requestOptions.headers ?? {}, ...(requestOptions.rawBody !== undefined ? { body: requestOptions.rawBody } : {}) });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  };

  return {
    baseUrl,
    services,
    videos,
    storage,
    enqueued,
    request,
    async createAccount(name = 'Video store') {
      const { account, apiKey } = await createAccount(database.db, { name });
      const authorization = `Basic ${Buffer.from(`${account.appId}:${apiKey}`).toString('base64')}`;
      return {
        id: account.id,
        appId: account.appId,
        apiKey,
        request: (method, urlPath, body, headers = {}) => {
          const isRaw = Buffer.isBuffer(body) || typeof body === 'string';
          return request(method, urlPath, {
            ...(body === undefined ? {} : { rawBody: isRaw ? (body as Buffer | string) : JSON.stringify(body) }),
            headers: { Authorization: authorization, ...(body !== undefined && !isRaw ? { 'Content-Type': 'application/json' } : {}), ...headers },
          });
        },
      };
    },
    async close() {
      for (const close of closers) await close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await database.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

export const fixture = (name: string): Buffer => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name));
export const fixturePath = (name: string): string => path.join(import.meta.dirname, 'fixtures', name);
