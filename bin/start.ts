import { nodeHandler } from '../src/http/node-handler.ts';
import path from 'node:path';
import { startWorkers, type RunningWorkers } from '../jobs/start-workers.ts';
import { startIntakeReporter } from '../src/shopify/intake/intake-reports.ts';
import { startAdminSocket } from '../src/admin/socket.ts';
import { createHttpApp, createServices } from '../src/app.ts';
import { resolveOperatorCredentials } from '../src/operations/operator-credentials.ts';
import { ConfigError, describeConfig, loadConfig } from '../src/config.ts';
import { compileMessageTemplates } from '../src/notifications/messages/message-templates.ts';
import { MessageTemplateError } from '../src/notifications/messages/template-errors.ts';
import { DataDirLockedError } from '../src/db/data-dir-lock.ts';
import { openConfiguredDatabase } from '../src/db/open.ts';
import { SchemaNewerThanBuildError } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { closeHttpServer } from '../src/http/close-server.ts';
import { createWebServer } from '../src/http/web-server.ts';
import { followNpmParent } from '../src/process/follow-parent.ts';
import { exitGracefullyOnSignals } from '../src/process/shutdown.ts';
import { describeShopifyConfig } from '../src/shopify/config.ts';
import { resolveTokenKey } from '../src/shopify/auth/token-key-file.ts';
import { RedisNotInstalledError, startPrivateRedis, type PrivateRedis } from '../src/redis/private-redis.ts';

/**
 * `npm start`: the whole system in one process on embedded defaults — web server, admin socket
 * for the CLI, a private redis-server, the carrier sandbox and the BullMQ workers. Production runs the same pieces as
 * separate web and worker processes.
 */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const logger = createLogger(loaded.logLevel);
  const operator = resolveOperatorCredentials(loaded);
  const tokenKey = resolveTokenKey(loaded);
  const config = {
    ...loaded,
    operator: operator.credentials,
    tokenEncryption: { ...loaded.tokenEncryption, key: tokenKey.key },
  };
  logger.info({ config: describeConfig(config) }, 'starting doorstep');
  if (tokenKey.keyFile) {
    // The file's path, never the key: losing the file loses every stored Shopify token.
    logger.info(
      { keyFile: tokenKey.keyFile, generated: tokenKey.generated },
      'Shopify tokens are encrypted with the key in this file: back it up with the database (set TOKEN_ENCRYPTION_KEY to choose one)',
    );
  }
  if (operator.generatedFile) {
    logger.info(
      { user: 'operator', passwordFile: operator.generatedFile },
      'operator password for /metrics and /admin/queues is in this file (set OPERATOR_PASSWORD to choose one)',
    );
  } else if (!config.operator) {
    logger.warn('OPERATOR_PASSWORD is not set: /metrics and /admin/queues answer 503');
  }

  // Before anything is opened: a template that does not compile is a broken build, not a runtime surprise.
  const templates = await compileMessageTemplates();
  const database = await openConfiguredDatabase(config, logger);
  const redis: PrivateRedis | null = config.redisUrl
    ? null
    : await startPrivateRedis(path.join(config.dataDir, 'redis'), logger, {
        // A Redis that will not come back: exit non-zero so a supervisor (systemd, Docker) restarts
        // the whole process, rather than staying up with every send stalled. PostgreSQL has the work.
        onGiveUp: (error) => {
          process.stderr.write(`Doorstep is exiting: ${error.message}\n`);
          process.exit(1);
        },
      });
  const services = await createServices(
    { ...config, redisUrl: config.redisUrl ?? redis!.url },
    logger,
    database,
    templates,
  );
  // Rows of versions before encryption: sealed before anything serves (stored-tokens.ts).
  await services.shopify.sealPlainTextTokens();
  services.metrics.setProcess(config.workers ? 'all' : 'web', { processMetrics: true });
  const adminSocket =
    database.kind === 'pglite'
      ? await startAdminSocket(config.dataDir, database.db, logger, {
          shopify: services.shopify,
          publicUrl: config.publicUrl,
          tokenCipher: () => services.shopify.deps.tokenCipher,
        })
      : null;
  if (config.shopify.development) {
    logger.warn(
      { shopify: describeShopifyConfig(config.shopify) },
      'Shopify app running on the built-in DEVELOPMENT key and secret (public); set SHOPIFY_API_KEY and SHOPIFY_API_SECRET for a real app',
    );
  }
  if (services.sandboxedCarriers.length > 0) {
    logger.warn(
      {
        carriers: services.sandboxedCarriers,
        control: `${config.publicUrl}/sandbox/carriers/{carrier}/packages/{tracking_number}/events`,
      },
      'no credentials for these carriers: they run against the built-in sandbox (fake carrier APIs), polled every few seconds',
    );
  }

  const server = createWebServer(logger, nodeHandler(createHttpApp(services)));

  // The worker processes yield to this intake while it queues (src/shopify/intake/intake-reports.ts).
  const intakeReporter = startIntakeReporter(services.intakeReports, services.shopify.intakeLoad);

  // Installed before listening, so a SIGTERM during start-up (an orchestrator that gives up on a
  // slow start) also shuts down in order rather than by the signal's default.
  let workersStarting: Promise<RunningWorkers> | null = null;
  // Stop taking work first (no new connections, no new jobs), let what is in flight finish, then
  // close the queues while their Redis is still up, and only then Redis and the database.
  const { shutdown } = exitGracefullyOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    steps: [
      // Synchronously, as the signal is handled: redis-server may have got the same signal.
      { name: 'expect the private redis to stop', run: async () => redis?.expectStop() },
      { name: 'http server', run: () => closeHttpServer(server) },
      { name: 'intake reports', run: () => intakeReporter.stop() },
      // The private Redis may be gone already, or go while we wait (the whole group was
      // signalled): a job's result cannot be recorded any more, so from then on the running
      // processors finish and nothing waits on Redis; its append-only file still holds the jobs as
      // active, handed back as stalled at the next start.
      {
        name: 'workers',
        run: async () => {
          const running = await workersStarting;
          if (!running) return;
          if (!redis) return running.close();
          await Promise.race([running.close(), redis.exited.then(() => running.close({ force: true }))]);
        },
      },
      { name: 'queues', run: () => services.close() },
      { name: 'private redis', run: async () => redis?.stop() },
      { name: 'admin socket', run: async () => adminSocket?.close() },
      { name: 'database', run: () => database.close() },
    ],
  });

  // `kill -TERM <npm pid>` reaches npm alone: we follow it out, in order (src/process/follow-parent.ts).
  followNpmParent((why) => void shutdown(why));

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(`Port ${config.port} is already in use. Stop what runs there or set PORT.`)
          : error,
      ),
    );
    server.listen(config.port, resolve);
  });
  logger.info({ url: config.publicUrl, port: config.port }, `Doorstep is listening on ${config.publicUrl}`);

  if (config.workers) {
    workersStarting = startWorkers(services);
    await workersStarting;
  }
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof RedisNotInstalledError ||
    error instanceof MessageTemplateError ||
    error instanceof SchemaNewerThanBuildError
  ) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Doorstep failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
