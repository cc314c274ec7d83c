import type { Logger } from '../logger.ts';

/** One thing to close on the way out, named so a log line can say which one did not finish. */
export interface ShutdownStep {
  name: string;
  run(): Promise<void>;
}

export interface GracefulShutdownOptions {
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: after this the process exits with 1 whatever is still running. */
  timeoutMs: number;
  /** Run one after the other, in this order, each whatever the previous one did. */
  steps: ShutdownStep[];
  /** Injected by tests; `process.exit` otherwise. */
  exit?: (code: number) => void;
  /** Where SIGTERM and SIGINT arrive; `process` otherwise. */
  signals?: NodeJS.EventEmitter;
}

/**
 * SIGTERM (systemd, Docker, Kubernetes) and SIGINT (Ctrl-C) stop the process the same way: each
 * step in order — stop taking work, let in-flight work finish, close queues, then storage — and
 * then an explicit exit. The exit is explicit because a connection that retries forever (a worker's
 * Redis connection whose server is gone) would otherwise keep the event loop, and the process,
 * alive for good. The deadline bounds everything: a step that hangs (a job stuck on an unreachable
 * provider, Redis gone before the queues closed) costs at most `timeoutMs`, then exit code 1.
 *
 * A repeated signal does not cut the shutdown short: when a whole process group is signalled,
 * `npm` forwards the signal its child already got, so a second one arrives at once by design.
 */
export function exitGracefullyOnSignals(options: GracefulShutdownOptions): { shutdown(reason: string): Promise<void> } {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? process;
  const { logger } = options;
  let running: Promise<void> | null = null;

  const shutdown = (reason: string): Promise<void> => {
    if (running) {
      logger.info({ signal: reason }, 'already shutting down');
      return running;
    }
    running = (async () => {
      logger.info({ signal: reason, timeoutMs: options.timeoutMs }, 'shutting down');
      let current = 'start';
      const deadline = setTimeout(() => {
        logger.error(
          { step: current, timeoutMs: options.timeoutMs },
          'shutdown did not finish within SHUTDOWN_TIMEOUT_MS; exiting with what is still running',
        );
        exit(1);
      }, options.timeoutMs);
      let failed = false;
      for (const step of options.steps) {
        current = step.name;
        try {
          await step.run();
        } catch (error) {
          failed = true;
          logger.warn({ err: error, step: step.name }, 'a shutdown step failed; going on with the next');
        }
      }
      clearTimeout(deadline);
      logger.info({ clean: !failed }, 'stopped');
      exit(failed ? 1 : 0);
    })();
    return running;
  };

  signals.on('SIGTERM', () => void shutdown('SIGTERM'));
  signals.on('SIGINT', () => void shutdown('SIGINT'));
  return { shutdown };
}
