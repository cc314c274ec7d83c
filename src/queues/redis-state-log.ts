import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

/**
 * Logs a Redis connection's state changes, not its errors: one warning when it becomes unreachable
 * and one line when it is back. ioredis reports an error per reconnect attempt (every few seconds
 * while Redis is down); nothing is lost meanwhile (PostgreSQL holds the work), so a line per attempt
 * would only bury the one that matters.
 */
export class RedisStateLog {
  private down = false;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Follows a connection's `error` and `ready` events. */
  watch(redis: Redis): void {
    redis.on('error', (error: Error) => this.failed(error));
    redis.on('ready', () => this.recovered());
  }

  failed(error: Error): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      { err: error, what: this.what },
      'redis is unreachable; queued work waits until it is back (PostgreSQL keeps it)',
    );
  }

  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info({ what: this.what }, 'redis is reachable again');
  }
}
