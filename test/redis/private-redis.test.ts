import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { PRIVATE_REDIS_PID_FILE, startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.ts';
import { projectRoot } from '../support/processes.ts';
import { eventually } from '../support/workers.ts';

/**
 * Issue 13 item 1: the embedded default's private Redis is supervised — ready means PONG, a dead
 * child comes back on the same port and data, an orphan of a killed app is reaped, and a Redis that
 * cannot come back ends in `onGiveUp` (npm start exits non-zero).
 */
const logger = createLogger('silent');
let dir: string;
const running: PrivateRedis[] = [];
const clients: Redis[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  for (const redis of running.splice(0)) await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startPrivateRedis>[2] = {}) {
  const redis = await startPrivateRedis(dir, logger, options);
  running.push(redis);
  return redis;
}
function client(url: string) {
  const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
  redis.on('error', () => {});
  clients.push(redis);
  return redis;
}
const pidOf = () => Number(fs.readFileSync(path.join(dir, PRIVATE_REDIS_PID_FILE), 'utf8'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Waits until the append-only files hold `text`, so a SIGKILL cannot lose it (appendfsync everysec). */
const persisted = (text: string) =>
  eventually(
    async () => {
      const aofDir = path.join(dir, 'appendonlydir');
      const files = fs.existsSync(aofDir) ? fs.readdirSync(aofDir).map((f) => path.join(aofDir, f)) : [];
      return files.some((f) => fs.readFileSync(f, 'latin1').includes(text)) ? true : undefined;
    },
    10_000,
    `${text} in the append-only file`,
  );

describe('the private redis-server', () => {
  it('comes back on the same port with its data after being killed, and clients reconnect', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-redis-'));
    const redis = await start({ respawnDelayMs: 100 });
    const db = client(redis.url);
    await db.set('gift', 'kept');
    await persisted('gift');
    const first = pidOf();
    process.kill(first, 'SIGKILL');
    await eventually(async () => (!redis.isRunning() ? true : undefined), 5_000, 'the child to be gone');
    await eventually(
      async () => (redis.isRunning() && pidOf() !== first ? true : undefined),
      15_000,
      'a new redis-server',
    );
    expect(await db.get('gift')).toBe('kept');
  });

  it('reaps the redis-server an app killed with SIGKILL left on the same directory', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-redis-'));
    const app = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(projectRoot, 'test/redis/hold-private-redis.ts'), dir],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      app.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('READY') && resolve());
      app.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
    });
    const orphan = pidOf();
    app.kill('SIGKILL');
    await new Promise((resolve) => app.once('exit', resolve));
    expect(alive(orphan)).toBe(true); // kill -9 skips every exit handler: the child outlives the app

    const redis = await start();
    expect(alive(orphan)).toBe(false);
    expect(pidOf()).not.toBe(orphan);
    expect(await client(redis.url).ping()).toBe('PONG');
  });

  it('leaves alone a live process whose pid is in the file but is not a redis-server of this directory', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-redis-'));
    fs.writeFileSync(path.join(dir, PRIVATE_REDIS_PID_FILE), String(process.pid));
    await start();
    expect(alive(process.pid)).toBe(true);
  });

  it('gives up (npm start then exits non-zero) when it cannot be started again', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-redis-'));
    let gaveUp: Error | undefined;
    const redis = await start({ respawnDelayMs: 500, maxRespawnFailures: 2, onGiveUp: (error) => (gaveUp = error) });
    const port = Number(new URL(redis.url).port);
    // Something else takes the port the moment the child is gone.
    const first = pidOf();
    process.kill(first, 'SIGKILL');
    await eventually(async () => (!redis.isRunning() ? true : undefined), 5_000, 'the child to be gone');
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const error = await eventually(async () => gaveUp, 30_000, 'onGiveUp');
      expect(error.message).toMatch(/could not be started again after 2 tries/);
    } finally {
      squatter.close();
    }
  });
});
