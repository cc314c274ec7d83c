import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/net/free-port.ts';

export interface PostgresServer {
  /** `postgres://doorstep@127.0.0.1:PORT/doorstep` */
  url: string;
  /** Its data directory: what `stopPostgresAt` needs to stop it from another process. */
  dataDir: string;
  /**
   * What a Doorstep process needs to use this server: its `DATABASE_URL`, and the Shopify token key
   * that is required with it (src/config.ts), one per server so every process on it shares it.
   */
  doorstepEnv: { DATABASE_URL: string; TOKEN_ENCRYPTION_KEY: string };
  /** `pg_ctl stop -m fast`: open connections are told to go (57P01), new ones are refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): void;
}

/**
 * A private PostgreSQL server (initdb + pg_ctl in a temp dir, loopback only) that the caller can
 * stop and start again on the same port — what a fault test needs. The one start-up of PostgreSQL
 * everywhere: the tests, `scripts/with-postgres.sh` (fsync off), the bench (`fsync: true`) and the
 * soak. PostgreSQL refuses to run as root, so as
 * root it runs as the `postgres` user.
 */
export async function startPostgresServer(
  options: { fsync?: boolean; settings?: string[] } = {},
): Promise<PostgresServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-pg-'));
  const port = await freePort();
  if (asOwner().length > 0) execFileSync('chown', ['postgres', dir]);
  // Asynchronous: the test keeps sending requests while the server stops and starts.
  // No pipes: the postmaster pg_ctl leaves behind must not hold them open.
  // Bounded: pg_ctl -w gives up after its own 60 s, and nothing here waits longer than 90 s.
  const run = (command: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [file, ...rest] = [...asOwner(), command, ...args];
      const child = spawn(file!, rest, { stdio: 'ignore' });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${command} ${args.join(' ')} did not finish within 90 s (killed)`));
      }, 90_000);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${command} ${args.join(' ')} exited with ${code}`));
      });
    });
  const data = path.join(dir, 'data');
  const serverOptions = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    `-c fsync=${options.fsync ? 'on' : 'off'}`,
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
  ].join(' ');
  await run('initdb', ['-D', data, '-U', 'doorstep', '--auth=trust', '-E', 'UTF8']);
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-o', serverOptions, 'start']);
  await start();
  await run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'doorstep', 'doorstep']);
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    stopPostgresAt(data);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', destroy);
  const url = `postgres://doorstep@127.0.0.1:${port}/doorstep`;
  return {
    url,
    dataDir: data,
    doorstepEnv: { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    destroy,
  };
}

/**
 * `pg_ctl stop -m immediate` on the server running in `dataDir`, if any, bounded at 30 s. For a
 * process that did not start the server: pg_ctl puts the postmaster in a session of its own, so no
 * signal to a process group reaches it, and whoever cleans up after a run must stop it by its data.
 */
export function stopPostgresAt(dataDir: string): void {
  const [file, ...rest] = [...asOwner(), 'pg_ctl', '-D', dataDir, '-m', 'immediate', 'stop'];
  spawnSync(file!, rest, { stdio: 'ignore', timeout: 30_000 });
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asOwner(): string[] {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
}
