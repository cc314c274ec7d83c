/**
 * Starts a private redis-server on the directory given as argument and prints READY: the stand-in
 * for an app that is then killed with SIGKILL (test/redis/private-redis.test.ts).
 */
import { createLogger } from '../../src/logger.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';

const redis = await startPrivateRedis(process.argv[2]!, createLogger('silent'));
process.stdout.write(`READY ${redis.url}\n`);
setInterval(() => {}, 60_000);
