/**
 * Connection-level failures from pg / ioredis, which mean "down", not "bug": refused or dropped
 * sockets, PostgreSQL shutting down or starting up (57P01, 57P03), too many connections (53300),
 * any connection exception (class 08). pg gives no code when a connection it held dies under it —
 * the server went away mid-request — so those are known by pg's own messages
 * (test/process/postgres-restarts.test.ts meets each of them).
 */
export function isDependencyUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string')
    return (
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '53300'].includes(code) || /^08/.test(code)
    );
  const message = error instanceof Error ? error.message : '';
  return PG_CONNECTION_LOST.some((text) => message.startsWith(text));
}

const PG_CONNECTION_LOST = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];
