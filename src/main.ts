import http from 'node:http';
import { startAdminSocket } from './admin/socket.ts';
import { createHttpApp, createServices } from './app.ts';
import { ConfigError, describeConfig, loadConfig } from './config.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { openConfiguredDatabase } from './db/open.ts';
import { createLogger } from './logger.ts';

/**
 * `npm start`: the whole system in one process on embedded defaults — web server, admin socket
 * for the CLI, and (from the tracking issue on) the workers. Production runs the same pieces as
 * separate web and worker processes.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  logger.info({ config: describeConfig(config) }, 'starting doorstep');

  const database = await openConfiguredDatabase(config);
  const services = createServices(config, logger, database);
  const adminSocket = database.kind === 'pglite' ? await startAdminSocket(config.dataDir, database.db, logger) : null;

  const server = http.createServer(createHttpApp(services).callback());
  // Slow clients must not hold sockets forever (a slowloris guard); uploads get the request timeout.
  server.headersTimeout = 20_000;
  server.requestTimeout = 300_000;
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  logger.info({ url: config.publicUrl, port: config.port }, `Doorstep is listening on ${config.publicUrl}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await adminSocket?.close();
    await database.close();
    logger.info('stopped');
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Doorstep failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
