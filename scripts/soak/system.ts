import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, type BenchPostgres } from '../../bench/support/postgres.ts';
import { freePort } from '../../src/net/free-port.ts';
import { startFakeSmsApi } from '../../test/support/fake-sms.ts';
import { startMailServer } from '../../test/support/mail-server.ts';
import {
  spawnDoorstep,
  startServerProcess,
  waitForExit,
  waitForOutput,
  type DoorstepProcess,
} from '../../test/support/processes.ts';
import { RedisServerExited, startRedisServer } from '../../test/support/redis-server.ts';
import { withDeadline } from '../../src/process/deadline.ts';
import { recordCustody } from './custody.ts';
import { standInForForkStuckBeforeExec } from './pre-exec-stand-in.ts';
import type { SoakOptions } from './options.ts';

/**
 * The whole system as production runs it, from processes: PostgreSQL (a throw-away server, or
 * DATABASE_URL), a redis-server of its own with an append-only file, one web process
 * (`WORKERS=off`, serving the carrier sandbox) and two worker processes, a real SMTP server and the
 * Twilio-compatible SMS fake as the recipients' inboxes.
 */
export interface SoakSystem {
  base: string;
  env: Record<string, string>;
  databaseUrl: string;
  web: DoorstepProcess;
  /** The worker processes by slot; a killed slot gets a new process. */
  workers: DoorstepProcess[];
  mail: Awaited<ReturnType<typeof startMailServer>>;
  sms: Awaited<ReturnType<typeof startFakeSmsApi>>;
  /** SIGKILL to redis-server, then the same binary on the same port and append-only file. */
  killRedis(downMs: number): Promise<void>;
  /** SIGKILL to the worker in `slot`, then a new worker process in its place. */
  killWorker(slot: number): Promise<void>;
  /** Processes of ours that exited without being asked to, with their last output. */
  crashes(): string[];
  stop(): Promise<void>;
}

export async function startSystem(options: {
  workers: number;
  log: (line: string) => void;
  injectStall?: SoakOptions['injectStall'];
}): Promise<SoakSystem> {
  const { log } = options;
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-soak-'));
  recordCustody({ dir: temp });
  const cleanups: Array<() => Promise<void> | void> = [() => fs.rmSync(temp, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.reverse())
      await withDeadline(Promise.resolve().then(cleanup), 30_000, 'a soak process or server to stop').catch(
        (error: unknown) => log(`while stopping: ${error instanceof Error ? error.message : String(error)}`),
      );
  };
  try {
    let postgres: BenchPostgres | undefined;
    const databaseUrl = process.env.DATABASE_URL || (postgres = await startPostgres({ fsync: false })).url;
    if (postgres) {
      recordCustody({ postgres: postgres.dataDir });
      recordCustody({ dir: path.dirname(postgres.dataDir) });
      cleanups.push(() => postgres.stop());
    }
    log(postgres ? `PostgreSQL ${postgres.version} (throw-away)` : 'PostgreSQL from DATABASE_URL');

    const redisPort = await freePort();
    const redisDir = path.join(temp, 'redis');
    fs.mkdirSync(redisDir);
    let redis: ChildProcess = await startRedisServer(redisPort, [], { persistentDir: redisDir });
    cleanups.push(() => void redis.kill('SIGKILL'));

    const mail = await startMailServer();
    cleanups.push(() => mail.close());
    const sms = await startFakeSmsApi();
    cleanups.push(() => sms.close());

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      // Web and workers share the database, so they share the Shopify token key (src/config.ts).
      TOKEN_ENCRYPTION_KEY: process.env.TOKEN_ENCRYPTION_KEY || randomBytes(32).toString('base64'),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      // A prefix of its own: DATABASE_URL may be shared, and so may a machine's other soaks.
      QUEUE_PREFIX: `soak-${process.pid}`,
      SMTP_URL: mail.url,
      SMS_API_URL: sms.url,
      SMS_ACCOUNT_SID: sms.credentials.sid,
      SMS_AUTH_TOKEN: sms.credentials.token,
      SMS_FROM: '+15005550006',
      PUBLIC_URL: base,
      DATA_DIR: path.join(temp, 'data'),
      CARRIER_SANDBOX: 'on',
      CARRIER_SANDBOX_URL: `${base}/sandbox`,
      // The soak's record-page uploads all come from 127.0.0.1: the per-address budget is for strangers.
      RECORD_UPLOADS_PER_IP_PER_HOUR: '1000000',
      RECORD_UPLOADS_PER_ORDER_PER_HOUR: '1000',
      SHUTDOWN_TIMEOUT_MS: '5000',
      // A worker killed during a provider call leaves its send 'sending'; the reconciler holds it as
      // uncertain after SEND_SENDING_TIMEOUT_MS. Production waits 5 min; the soak settles sooner.
      SEND_CLAIM_TIMEOUT_MS: '20000',
      SEND_SENDING_TIMEOUT_MS: '45000',
      RECONCILE_EVERY_MS: '5000',
      LOG_LEVEL: 'warn',
    };
    const expectedExit = new Set<ChildProcess>();
    const crashed: string[] = [];
    const watch = (proc: DoorstepProcess, name: string) => {
      proc.child.once('exit', (code, signal) => {
        if (!expectedExit.has(proc.child))
          crashed.push(
            `${name} (pid ${proc.child.pid}) exited by itself (${signal ?? `code ${code}`}):\n${proc.output().slice(-3000)}`,
          );
      });
      cleanups.push(async () => {
        expectedExit.add(proc.child);
        await proc.stop();
      });
    };

    const web = await startServerProcess({ ...env, PORT: String(port), WORKERS: 'off' });
    watch(web, 'web');
    log(`web process ${web.child.pid} on ${base}`);
    const startWorker = async (slot: number) => {
      // Its own PORT and METRICS_PORT: two workers on one machine must not race for 9464.
      const worker = spawnDoorstep('bin/worker.ts', {
        ...env,
        PORT: String(await freePort()),
        METRICS_PORT: String(await freePort()),
        // Info, for the "workers started" line that says it is ready.
        LOG_LEVEL: 'info',
      });
      watch(worker, `worker ${slot}`);
      await waitForOutput(worker, /"msg":"workers started"/, 90_000).catch((error: unknown) => {
        // Not left running: a worker that did not start in time is stopped before the run fails.
        worker.child.kill('SIGKILL');
        throw error;
      });
      return worker;
    };
    const workers: DoorstepProcess[] = [];
    for (let slot = 0; slot < options.workers; slot++) {
      workers.push(await startWorker(slot));
      log(`worker ${slot} process ${workers[slot]!.child.pid}`);
    }

    return {
      base,
      env,
      databaseUrl,
      web,
      workers,
      mail,
      sms,
      async killRedis(downMs) {
        redis.kill('SIGKILL');
        await waitForExit(redis, 10_000);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        if (options.injectStall === 'event-loop') {
          recordCustody({ phase: 'restarting redis-server (stall injected: the event loop is blocked)' });
          // What the soak's stall looked like from outside: no output, no CPU, no timer ever fires.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
        }
        if (options.injectStall === 'fork') {
          recordCustody({ phase: 'restarting redis-server (stall injected: a spawn whose child never execs)' });
          log(`spawn stalled: ${standInForForkStuckBeforeExec()}`);
        }
        // A start whose process died before it answered (the supervisor kills a fork stuck before
        // exec) is tried again; one that never answers is not.
        for (let attempt = 1; ; attempt++) {
          try {
            redis = await startRedisServer(redisPort, [], {
              persistentDir: redisDir,
              // Stall injected: the restarted server is stopped before it can answer, so nothing it
              // is asked ever comes back.
              ...(options.injectStall === 'redis' ? { onSpawn: (child) => void child.kill('SIGSTOP') } : {}),
            });
            break;
          } catch (error) {
            if (!(error instanceof RedisServerExited) || attempt === 3) throw error;
            log(`${error.message}; starting it again`);
          }
        }
      },
      async killWorker(slot) {
        const old = workers[slot]!;
        expectedExit.add(old.child);
        old.child.kill('SIGKILL');
        await waitForExit(old.child, 10_000);
        workers[slot] = await startWorker(slot);
      },
      crashes: () => [...crashed],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
