import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net/free-port.ts';
import { RedisServerExited, startRedisServer } from '../support/redis-server.ts';

/**
 * The soak restarts redis-server after killing it (scripts/soak/system.ts). A start whose process is
 * killed before it answers — as the soak's supervisor kills a fork stuck before exec — fails at once
 * with an error the soak retries, not after the 10 s wait for PING.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('starting a redis-server', () => {
  it('fails at once, as RedisServerExited, when its process dies before answering', async () => {
    const port = await freePort();
    const started = Date.now();
    const start = startRedisServer(port, dirs, { onSpawn: (child) => void child.kill('SIGKILL') });
    await expect(start).rejects.toBeInstanceOf(RedisServerExited);
    await expect(start).rejects.toThrow(`redis-server on port ${port} exited (SIGKILL) before answering PING`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers once it is up', async () => {
    const child = await startRedisServer(await freePort(), dirs);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
  });
});
