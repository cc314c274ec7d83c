import http from 'node:http';
import type Koa from 'koa';
import pg from 'pg';
import { nodeHandler } from '../../src/http/node-handler.ts';

/**
 * What every floor shares: a `pg` pool the size of the service's (src/db/database.ts) and a plain
 * node:http server on PORT. A floor is the least work its scenario can be done with, hand-written,
 * so the service's figure can be read as a fraction of what the machine allows.
 */
export function floorPool(): pg.Pool {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('a floor needs DATABASE_URL');
  return new pg.Pool({ connectionString: url, max: 10 });
}

export function serveFloor(app: Koa, name: string): void {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('a floor needs PORT');
  const server = http.createServer(nodeHandler(app));
  server.listen(port, '127.0.0.1', () => process.stdout.write(`${name} floor listening on ${port}\n`));
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

/** The raw request body: the webhook floor's HMAC is over these exact bytes. */
export async function rawBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
