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
 *
 * With `persistentDir`, it keeps an append-only file there (fsync every second, as production's
 * Redis does: docs/operations.md), so a restart on the same directory comes back with its data
 * less the last second — what `npm run soak` kills and restarts.
 */
export async function startRedisServer(
  port: number,
  dirs: string[],
  options: { persistentDir?: string; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<ChildProcess> {
  const dir = options.persistentDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-test-redis-'));
  if (!dirs.includes(dir)) dirs.push(dir);
  const persistence = options.persistentDir
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
    : ['--appendonly', 'no'];
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence],
    { stdio: 'ignore' },
  );
  options.onSpawn?.(child);
  // A server that dies first (a port taken, or a fork killed before it became redis-server) fails
  // the start at once, not after the wait's deadline.
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(
        new RedisServerExited(
          `redis-server on port ${port} exited (${signal ?? `code ${code}`}) before answering PING`,
        ),
      ),
    ),
  );
  exited.catch(() => {});
  try {
    await Promise.race([
      exited,
      eventually(
        async () => {
          const probe = new Redis({
            port,
            host: '127.0.0.1',
            lazyConnect: true,
            maxRetriesPerRequest: 0,
            retryStrategy: () => null,
            // A server that accepts and never answers (stopped, or still loading) fails this probe, not the wait.
            connectTimeout: 2000,
            commandTimeout: 2000,
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
        `redis-server on port ${port} to answer PING`,
      ),
    ]);
  } catch (error) {
    // A server that never answered is not left behind holding the port.
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

/** The redis-server process ended before it answered: starting it again may succeed. */
export class RedisServerExited extends Error {}
