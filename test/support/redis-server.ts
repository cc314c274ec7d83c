import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from './workers.ts';

/**
 * A redis-server of the test's own on `port`, with an empty data directory and no persistence, so
 * the test can kill it and bring it back (on the same port) as an outage would. Resolves once it
 * answers PING: an open port is not yet a Redis that answers.
 */
export async function startRedisServer(port: number, dirs: string[]): Promise<ChildProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-test-redis-'));
  dirs.push(dir);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await eventually(
    async () => {
      const probe = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => {});
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG' ? true : undefined;
      } finally {
        probe.disconnect();
      }
    },
    10_000,
    'redis to start',
  );
  return child;
}
