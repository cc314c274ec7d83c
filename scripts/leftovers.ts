/**
 * `node --import tsx scripts/leftovers.ts DIR [--kill]`: the processes a run left behind, found by
 * where they live rather than by who their parent was (a killed parent's children have none, and
 * pg_ctl's postmaster never had one of ours): every process whose working directory or command line
 * is under DIR, or whose TMPDIR is DIR or under it. `.ci/run` points TMPDIR at its own work folder,
 * so everything its steps start — PostgreSQL data directories, redis-server's --dir, Doorstep's web
 * and worker processes, tsx's esbuild — is found here. Prints one line per process; with --kill,
 * stops each (PostgreSQL by `pg_ctl stop -m immediate` on its data directory, the rest by SIGKILL)
 * and exits 0, else exits 1 when any is found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stopPostgresAt } from '../test/support/postgres-server.ts';

export interface Leftover {
  pid: number;
  command: string;
  /** The data directory of a PostgreSQL postmaster, which is stopped through pg_ctl. */
  postgresDataDir?: string;
}

/** Processes under `dir` (not this one, nor its ancestors: the caller runs there too). */
export function findLeftovers(dir: string): Leftover[] {
  const root = path.resolve(dir);
  const under = (value: string) => value === root || value.startsWith(`${root}/`);
  const spared = ancestorsOf(process.pid);
  const found: Leftover[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || spared.has(Number(entry))) continue;
    const read = (file: string) => {
      try {
        return fs.readFileSync(`/proc/${entry}/${file}`, 'utf8');
      } catch {
        return '';
      }
    };
    const stat = read('stat');
    if (stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
    let cwd = '';
    try {
      cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      // Another user's process, or gone.
    }
    const args = read('cmdline').split('\0').filter(Boolean);
    const tmpdir = read('environ')
      .split('\0')
      .find((variable) => variable.startsWith('TMPDIR='))
      ?.slice('TMPDIR='.length);
    const matches = under(cwd) || args.some((arg) => arg.split(/[\s=]/).some(under)) || (tmpdir && under(tmpdir));
    if (!matches) continue;
    const dataDir = args[0]?.endsWith('/postgres') ? args[args.indexOf('-D') + 1] : undefined;
    found.push({
      pid: Number(entry),
      command: args.join(' ').slice(0, 200),
      ...(dataDir && args.includes('-D') ? { postgresDataDir: dataDir } : {}),
    });
  }
  return found;
}

/** Stops each leftover: PostgreSQL through pg_ctl (shared memory and all), the rest by SIGKILL. */
export function stopLeftovers(leftovers: Leftover[]): void {
  for (const leftover of leftovers) if (leftover.postgresDataDir) stopPostgresAt(leftover.postgresDataDir);
  for (const leftover of leftovers) {
    try {
      process.kill(leftover.pid, 'SIGKILL');
    } catch {
      // Already gone (a postmaster's children go with it).
    }
  }
}

function ancestorsOf(pid: number): Set<number> {
  const ancestors = new Set<number>();
  for (let current = pid; current > 1 && !ancestors.has(current);) {
    ancestors.add(current);
    try {
      const stat = fs.readFileSync(`/proc/${current}/stat`, 'utf8');
      current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return ancestors;
}

if (import.meta.filename === process.argv[1]) {
  const [dir, flag] = process.argv.slice(2);
  if (!dir || (flag !== undefined && flag !== '--kill')) {
    process.stderr.write('usage: node --import tsx scripts/leftovers.ts DIR [--kill]\n');
    process.exit(2);
  }
  const leftovers = findLeftovers(dir);
  for (const leftover of leftovers) process.stdout.write(`left behind: pid ${leftover.pid} ${leftover.command}\n`);
  if (flag === '--kill') stopLeftovers(leftovers);
  process.exit(flag === '--kill' || leftovers.length === 0 ? 0 : 1);
}
