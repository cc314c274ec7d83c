import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { errorHandler } from '../http/error-handler.ts';
import { nodeHandler } from '../http/node-handler.ts';
import { requestContext } from '../http/request-context.ts';
import type { Logger } from '../logger.ts';
import { operationsRoutes, type OperationsDeps } from './routes.ts';

export interface OperationsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The worker process's own small HTTP server: /healthz, /readyz and /metrics (its own registry),
 * so Prometheus scrapes each worker as a target of its own and an orchestrator can probe it.
 */
export async function startOperationsServer(
  deps: OperationsDeps,
  options: { port: number; host?: string; logger: Logger },
): Promise<OperationsServer> {
  const app = new Koa({ proxy: false });
  app.use(requestContext(options.logger));
  app.use(errorHandler);
  app.use(operationsRoutes(deps).routes());
  const server = http.createServer(nodeHandler(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
