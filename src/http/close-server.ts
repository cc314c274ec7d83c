import type http from 'node:http';

/**
 * Stops accepting connections and resolves once the requests in flight have been answered. Idle
 * keep-alive connections are closed now; busy ones get `Connection: close` on their response and
 * end after it (Node's server.close). What never finishes is bounded by the shutdown deadline.
 */
export function closeHttpServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) =>
      error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING' ? reject(error) : resolve(),
    );
    server.closeIdleConnections();
  });
}
