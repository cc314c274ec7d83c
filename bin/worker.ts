import os from 'node:os';
import { createServices, operationsDeps } from '../src/app.ts';
import { startOperationsServer } from '../src/operations/operations-server.ts';
import { ConfigError, describeConfig, loadConfig } from '../src/config.ts';
import { compileMessageTemplates } from '../src/notifications/messages/message-templates.ts';
import { MessageTemplateError } from '../src/notifications/messages/template-errors.ts';
import { openConfiguredDatabase } from '../src/db/open.ts';
import { SchemaNewerThanBuildError } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { startWorkers } from '../jobs/start-workers.ts';
import { followNpmParent } from '../src/process/follow-parent.ts';
import { exitGracefullyOnSignals } from '../src/process/shutdown.ts';

/**
 * `npm run worker`: the BullMQ workers alone, for production where web and worker processes scale
 * separately. Needs DATABASE_URL and REDIS_URL: the embedded PGlite and private Redis belong to
 * `npm start`'s single process.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl || !config.redisUrl) {
    throw new ConfigError(
      'npm run worker needs DATABASE_URL and REDIS_URL (the embedded defaults live inside `npm start`).',
    );
  }
  const logger = createLogger(config.logLevel).child({ process: 'worker' });
  logger.info({ config: describeConfig(config) }, 'starting doorstep worker');
  // Throughput, not latency: on a shared machine the web processes' intake gets the CPU first
  // (in one process, src/shopify/intake/intake-priority.ts does the same between its own parts).
  os.setPriority(Math.max(os.getPriority(), config.workerNice));
  const templates = await compileMessageTemplates();
  const database = await openConfiguredDatabase(config, logger);
  const services = await createServices(config, logger, database, templates);
  // Rows of versions before encryption: sealed at every start of either process (stored-tokens.ts).
  await services.shopify.sealPlainTextTokens();
  services.metrics.setProcess('worker', { processMetrics: true });
  if (!config.operator) logger.warn("OPERATOR_PASSWORD is not set: the worker's /metrics answers 503");
  const operations = await startOperationsServer(operationsDeps(services), { port: config.metricsPort, logger });
  logger.info({ port: operations.port }, 'worker serves /metrics, /healthz and /readyz');
  // Installed before the workers start, so a SIGTERM during start-up also shuts down in order.
  const workersStarting = startWorkers(services);
  // Workers stop picking jobs and finish the ones they hold, then the queues and the database close.
  const { shutdown } = exitGracefullyOnSignals({
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    steps: [
      { name: 'workers', run: async () => (await workersStarting).close() },
      { name: 'operations server', run: () => operations.close() },
      { name: 'queues', run: () => services.close() },
      { name: 'database', run: () => database.close() },
    ],
  });
  // `kill -TERM <npm pid>` reaches npm alone: we follow it out, in order (src/process/follow-parent.ts).
  followNpmParent((why) => void shutdown(why));
  await workersStarting;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${
      error instanceof ConfigError ||
      error instanceof MessageTemplateError ||
      error instanceof SchemaNewerThanBuildError
        ? error.message
        : error instanceof Error
          ? error.stack
          : String(error)
    }\n`,
  );
  process.exit(1);
});
