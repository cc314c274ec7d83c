import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { freePort } from '../net/free-port.ts';
import { ensurePrivateDir } from '../process/private-dir.ts';

export class RedisNotInstalledError extends Error {
  override name = 'RedisNotInstalledError';
  constructor() {
    super(
      'REDIS_URL is not set and no redis-server is installed to start a private one.\n' +
        'Install it (Debian/Ubuntu: apt-get install redis-server — `npm ci` does this itself when run as root; macOS: brew install redis), or set REDIS_URL.',
    );
  }
}

export interface PrivateRedis {
  url: string;
  /**
   * False once the child has gone: a SIGTERM to the whole process group (systemd, Docker, `kill --
   * -PID`) reaches redis-server at the same moment as us, so shutdown may find it already stopped.
   */
  isRunning(): boolean;
  /** Resolves when the child has exited, for whatever reason. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The embedded default: a private redis-server child on a free loopback port, its data under
 * `dir`. `noeviction` because BullMQ must never have its keys evicted (BullMQ docs, "Going to
 * production"); append-only so queued work survives a restart of the child.
 */
export async function startPrivateRedis(dir: string, logger: Logger): Promise<PrivateRedis> {
  if (spawnSync('redis-server', ['--version']).error) throw new RedisNotInstalledError();
  ensurePrivateDir(dir);
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      path.resolve(dir),
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      'yes',
      '--save',
      '',
      '--protected-mode',
      'yes',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  await waitForPort(port, child, () => output);
  logger.info({ port, dir }, 'started private redis-server');
  // If this process dies without stopping it, the child must not outlive us.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  // Killed by a signal, a child has a signalCode and no exitCode: both mean it is gone (waiting
  // for an 'exit' that already happened would hang shutdown for good).
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `redis://127.0.0.1:${port}`,
    isRunning: () => !exited(),
    exited: exit,
    stop: async () => {
      process.off('exit', killOnExit);
      if (exited()) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start listening on ${port}: ${output()}`);
}
