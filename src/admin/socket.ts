import { nodeHandler } from '../http/node-handler.ts';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import type { Db } from '../db/database.ts';
import { errorHandler } from '../http/error-handler.ts';
import { readJsonObject } from '../http/json-body.ts';
import { requestContext } from '../http/request-context.ts';
import type { Logger } from '../logger.ts';
import { adminCommands, type AdminExtras } from './commands.ts';

export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'admin.sock');
}

/**
 * The embedded PGlite database belongs to the one process that opened it, so while the server
 * runs the CLI reaches it through this Unix socket. It lives in DATA_DIR with mode 0600: only
 * the machine user that owns the data can use it, the same user who could read the files anyway.
 */
export async function startAdminSocket(
  dataDir: string,
  db: Db,
  logger: Logger,
  extras: AdminExtras = {},
): Promise<{ close(): Promise<void> }> {
  const socketPath = adminSocketPath(dataDir);
  fs.rmSync(socketPath, { force: true });
  const commands = adminCommands(db, extras);
  const router = new Router({ prefix: '/admin' });
  router.post('/:command', async (ctx) => {
    ctx.body = await commands.run(ctx.params.command!, await readJsonObject(ctx));
  });
  const app = new Koa();
  app.use(requestContext(logger.child({ channel: 'admin-socket' })));
  app.use(errorHandler);
  app.use(router.routes());
  const server = http.createServer(nodeHandler(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        fs.rmSync(socketPath, { force: true });
      }),
  };
}
