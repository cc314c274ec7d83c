/**
 * `scripts/with-postgres.sh <command> [args…]` (`npm run test:postgres`): runs a command against a
 * private, throw-away PostgreSQL 15 — the one start-up every test, bench and soak uses
 * (test/support/postgres-server.ts: initdb and pg_ctl in a temp dir, loopback only, as `postgres`
 * when run as root), with fsync off as the tests want. The command gets DATABASE_URL and the
 * Shopify token key required with it (kept if TOKEN_ENCRYPTION_KEY is already set); the server is
 * stopped and its files removed when the command ends, and on SIGINT, SIGTERM or SIGHUP.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { startPostgresServer } from '../test/support/postgres-server.ts';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: scripts/with-postgres.sh <command> [args…]\n');
  process.exit(2);
}

const server = await startPostgresServer({ fsync: false });
const port = new URL(server.url).port;
process.stderr.write(`PostgreSQL on port ${port} (throw-away, fsync off)\n`);
const child = spawn(command, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: server.doorstepEnv.DATABASE_URL,
    TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY || server.doorstepEnv.TOKEN_ENCRYPTION_KEY,
  },
});
// The command decides when to stop; its end stops the server.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
child.once('error', (error) => {
  process.stderr.write(`could not run ${command}: ${error.message}\n`);
  server.destroy();
  process.exit(127);
});
child.once('exit', (code, signal) => {
  server.destroy();
  process.exit(code ?? 128 + os.constants.signals[signal!]);
});
