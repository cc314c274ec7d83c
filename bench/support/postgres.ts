import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/net/free-port.ts';

export interface BenchPostgres {
  url: string;
  version: string;
  stop(): void;
}

/**
 * A private PostgreSQL server for one bench run, as scripts/with-postgres.sh starts one for the tests
 * (initdb + pg_ctl in a temp dir, loopback only), but with fsync ON: the issue's figures are for a
 * database that really flushes its commits, and the PUT floor is bound by exactly that.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user. `npm run soak` starts
 * one too, with `fsync: false` as the tests' server has: it measures correctness, not commit cost.
 */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<BenchPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-pg-'));
  const port = await freePort();
  const asOwner = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asOwner.length > 0) execFileSync('chown', ['postgres', dir]);
  const run = (command: string, args: string[]) => {
    const [file, ...rest] = [...asOwner, command, ...args];
    execFileSync(file!, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'doorstep', '--auth=trust', '-E', 'UTF8']);
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    path.join(dir, 'server.log'),
    '-w',
    '-o',
    // Room for the service's pool, four floors' pools and the bench's own connections; enough memory
    // that the seeded tables' indexes stay cached, as they would on a real server.
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync === false ? 'off' : 'on'} -c max_connections=200 -c shared_buffers=256MB`,
    'start',
  ]);
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'doorstep', 'doorstep']);
  const version = spawnSync('postgres', ['--version'])
    .stdout.toString()
    .trim()
    .replace(/^postgres \(PostgreSQL\) /, '');
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const [file, ...rest] = [...asOwner, 'pg_ctl', '-D', data, '-m', 'immediate', 'stop'];
    spawnSync(file!, rest, { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  return { url: `postgres://doorstep@127.0.0.1:${port}/doorstep`, version: `PostgreSQL ${version}`, stop };
}
