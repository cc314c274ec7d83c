import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
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
   * False while no child runs: a SIGTERM to the whole process group (systemd, Docker, `kill --
   * -PID`) reaches redis-server at the same moment as us, so shutdown may find it already stopped.
   */
  isRunning(): boolean;
  /** Resolves when the child running now (or the last one) has exited, for whatever reason. */
  readonly exited: Promise<void>;
  /**
   * We are stopping: from now on the child's exit is expected, not a death to repair. Called the
   * moment a stop signal arrives, because a signal to the whole process group stops redis-server
   * long before shutdown reaches `stop()` (before, every clean stop logged that it had died).
   */
  expectStop(): void;
  /** Stops supervising and stops the child. */
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** How long a start may take to answer PING (loading a large append-only file takes a while). */
  readyTimeoutMs?: number;
  /** Backoff before the first respawn; doubles per failure up to 30 s. */
  respawnDelayMs?: number;
  /** Consecutive failed respawns before giving up (then `onGiveUp`; `npm start` exits non-zero). */
  maxRespawnFailures?: number;
  /** Called once respawning has failed `maxRespawnFailures` times in a row. */
  onGiveUp?: (error: Error) => void;
}

/** The pid file redis-server keeps in its data directory: how the next start finds an orphan. */
export const PRIVATE_REDIS_PID_FILE = 'redis.pid';

/**
 * The embedded default: a private redis-server child on a loopback port, its data under `dir`.
 * `noeviction` because BullMQ must never have its keys evicted (BullMQ docs, "Going to
 * production"); append-only so queued work survives a restart of the child.
 *
 * Its whole lifecycle is ours (issue 13):
 * - Ready means PING answers PONG — not an open port, which Redis has while it still answers
 *   `LOADING` to everything.
 * - The append-only file is rewritten (compacted) at every start and whenever it doubles past 8 MB,
 *   so restarts stay quick however long the system runs.
 * - An orphan left by a `kill -9` of the app (same data directory, found by its pid file and its
 *   working directory) is stopped before a new one starts on the same files.
 * - A child that dies is started again on the same port and files, with backoff; connections
 *   (ioredis) reconnect by themselves, and /readyz reports Redis down meanwhile.
 */
export async function startPrivateRedis(
  dir: string,
  logger: Logger,
  options: PrivateRedisOptions = {},
): Promise<PrivateRedis> {
  if (spawnSync('redis-server', ['--version']).error) throw new RedisNotInstalledError();
  ensurePrivateDir(dir);
  const directory = path.resolve(dir);
  await reapOrphan(directory, logger);
  const port = await freePort();
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const firstDelayMs = options.respawnDelayMs ?? 1_000;
  const maxFailures = options.maxRespawnFailures ?? 5;

  let stopping = false;
  let current = await spawnReady(directory, port, readyTimeoutMs);
  logger.info({ port, dir }, 'started private redis-server');

  // If this process dies without stopping it, the child must not outlive us.
  const killOnExit = () => current.child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const supervise = (running: Running) => {
    void running.exit.then(async () => {
      if (stopping) return;
      logger.error(
        { port, code: running.child.exitCode, signal: running.child.signalCode },
        'the private redis-server died; starting it again on the same port and data (work waits in PostgreSQL meanwhile)',
      );
      let delayMs = firstDelayMs;
      for (let failures = 0; !stopping; failures++) {
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        if (stopping) return;
        try {
          current = await spawnReady(directory, port, readyTimeoutMs);
          if (stopping) {
            current.child.kill('SIGTERM');
            return;
          }
          logger.info({ port }, 'the private redis-server is back');
          supervise(current);
          return;
        } catch (error) {
          if (failures + 1 >= maxFailures) {
            const reason = new Error(
              `the private redis-server could not be started again after ${maxFailures} tries: ${(error as Error).message}`,
            );
            logger.error({ err: reason }, 'giving up on the private redis-server');
            options.onGiveUp?.(reason);
            return;
          }
          logger.warn({ err: error, retryInMs: delayMs * 2 }, 'the private redis-server did not start; trying again');
          delayMs = Math.min(delayMs * 2, 30_000);
        }
      }
    });
  };
  supervise(current);

  return {
    url: `redis://127.0.0.1:${port}`,
    isRunning: () => !hasExited(current.child),
    get exited() {
      return current.exit;
    },
    expectStop: () => {
      stopping = true;
    },
    stop: async () => {
      stopping = true;
      process.off('exit', killOnExit);
      if (hasExited(current.child)) return;
      const exit = current.exit;
      current.child.kill('SIGTERM');
      await exit;
    },
  };
}

interface Running {
  child: ChildProcess;
  exit: Promise<void>;
}

// Killed by a signal, a child has a signalCode and no exitCode: both mean it is gone (waiting for
// an 'exit' that already happened would hang shutdown for good).
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function spawnReady(directory: string, port: number, readyTimeoutMs: number): Promise<Running> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      directory,
      '--pidfile',
      path.join(directory, PRIVATE_REDIS_PID_FILE),
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      'yes',
      // Compaction on a schedule: rewrite once the file has doubled since the last rewrite, from 8 MB.
      '--auto-aof-rewrite-percentage',
      '100',
      '--auto-aof-rewrite-min-size',
      '8mb',
      '--save',
      '',
      '--protected-mode',
      'yes',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  try {
    await waitForPong(port, child, () => output, readyTimeoutMs);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  // Compaction at start: what the last run appended is rewritten as the smallest equivalent file.
  await command(port, 'BGREWRITEAOF').catch(() => undefined);
  return { child, exit };
}

/** Ready is PONG: while it loads its data Redis accepts connections and answers `-LOADING`. */
async function waitForPong(port: number, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (hasExited(child))
      throw new Error(`redis-server exited with ${child.exitCode ?? child.signalCode}: ${output()}`);
    try {
      last = await command(port, 'PING');
      if (last.startsWith('+PONG')) return;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `redis-server on port ${port} did not answer PING within ${timeoutMs} ms (last: ${last.trim()}): ${output()}`,
  );
}

/** One inline command over a fresh connection; resolves with Redis's first reply line. */
function command(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(2_000, () => socket.destroy(new Error('timed out')));
    let reply = '';
    socket.once('connect', () => socket.write(`${text}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed without a reply')));
  });
}

/**
 * A redis-server left running on this data directory by an app that was killed (`kill -9` skips
 * every exit handler) would share the append-only file with the one we are about to start. It is
 * ours when the pid file names a live `redis-server` whose working directory is this directory
 * (redis-server changes into `--dir`); only then is it stopped. Where /proc cannot tell (not
 * Linux), nothing is killed.
 */
async function reapOrphan(directory: string, logger: Logger): Promise<void> {
  const pidFile = path.join(directory, PRIVATE_REDIS_PID_FILE);
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 1 || !isOurOrphan(pid, directory)) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  logger.warn({ pid, dir: directory }, 'stopping a private redis-server left running by an earlier start');
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(pidFile, { force: true });
}

function isOurOrphan(pid: number, directory: string): boolean {
  try {
    const name = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name.startsWith('redis-server') && fs.readlinkSync(`/proc/${pid}/cwd`) === directory;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
