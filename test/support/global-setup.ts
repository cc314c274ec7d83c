import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../../src/logger.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/**
 * One real Redis for the whole run: REDIS_URL when set, else a private redis-server started the same
 * way `npm start` does it. Each test file uses its own BullMQ key prefix.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return async () => {};
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-test-redis-'));
  const redis = await startPrivateRedis(dir, createLogger('silent'));
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
