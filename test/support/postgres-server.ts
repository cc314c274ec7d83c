import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/net/free-port.ts';

export interface PostgresServer {
  /** `postgres://doorstep@127.0.0.1:PORT/doorstep` */
  url: string;
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
 * A private PostgreSQL server, as scripts/with-postgres.sh starts one (initdb + pg_ctl in a temp
 * dir, loopback only), that the caller can stop and start again on the same port — what a fault
 * test needs, and what the bench uses with `fsync: true`. PostgreSQL refuses to run as root, so as
 * root it runs as the `postgres` user.
 */
export async function startPostgresServer(
  options: { fsync?: boolean; settings?: string[] } = {},
): Promise<PostgresServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-pg-'));
  const port = await freePort();
  const asOwner = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asOwner.length > 0) execFileSync('chown', ['postgres', dir]);
  // Asynchronous: the test keeps sending requests while the server stops and starts.
  // No pipes: the postmaster pg_ctl leaves behind must not hold them open.
  const run = (command: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [file, ...rest] = [...asOwner, command, ...args];
      const child = spawn(file!, rest, { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
      );
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
    const [file, ...rest] = [...asOwner, 'pg_ctl', '-D', data, '-m', 'immediate', 'stop'];
    spawnSync(file!, rest, { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', destroy);
  const url = `postgres://doorstep@127.0.0.1:${port}/doorstep`;
  return {
    url,
    doorstepEnv: { DATABASE_URL: url, TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    destroy,
  };
}
