/**
 * Where the service's thread goes per request, measured so that a busy machine does not change the
 * answer much: the service's own CPU time per answered request (utime + stime of its process, from
 * /proc, around each load), next to the same figure for the floor of that request, and a CPU profile
 * per scenario with its heaviest functions.
 *
 *   npm run bench:profile [-- --seconds 10] [--rate N] [--cpu-only] [--connections N] [--kind get-order --kind put-price] [--profile-dir DIR]
 *
 * Each scenario gets a fresh service (bin/start.ts, workers on, as in `npm run bench`) started with
 * `--cpu-prof`, one load of `--seconds`, and a stop; the profile is written as the process exits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/net/free-port.ts';
import { startPrivateRedis } from '../../src/redis/private-redis.ts';
import { startChild, type Child } from '../support/children.ts';
import { basicAuthorization, installBenchShop, createBenchOrder, startBenchService } from '../support/service.ts';
import { summarizeProfile } from './cpu-profile.ts';
import { runLoad, type RequestKind } from '../support/load.ts';
import { startPostgres } from '../support/postgres.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    kind: { type: 'string', multiple: true },
    'profile-dir': { type: 'string' },
    top: { type: 'string', default: '25' },
    // A fixed request rate (all kinds): the service and its floor then wake PostgreSQL and the load
    // generator equally often, so the CPU per request compares the code, not how busy each kept the machine.
    rate: { type: 'string' },
    // The sampling profiler costs CPU itself (about 55 ms a second of an idle service): for the CPU
    // figures alone, leave it off.
    'cpu-only': { type: 'boolean', default: false },
    connections: { type: 'string', default: '10' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rate = values.rate === undefined ? {} : { overallRate: Number(values.rate) };
const kinds = (values.kind ?? ['get-order', 'put-price']) as RequestKind[];
const profileRoot = values['profile-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-profile-'));
const SHOP = 'bench-store.myshopify.com';
const FLOORS: Partial<Record<RequestKind, { entry: string; args: string[] }>> = {
  'get-order': { entry: 'bench/floors/get.ts', args: ['--auth'] },
  'put-price': { entry: 'bench/floors/put.ts', args: [] },
};

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks: 100 a second on Linux (USER_HZ).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The process's CPU per answered request during one load, less what it spends with no requests at
 * all (the service's workers tick, its queues poll): measured for IDLE_SECONDS first and taken off
 * in proportion, so a low fixed rate does not charge the background to each request.
 */
async function measure(child: Child, kind: RequestKind, spec: Parameters<typeof runLoad>[0]) {
  const pid = child.process.pid!;
  const idleFrom = cpuSeconds(pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idlePerSecond = (cpuSeconds(pid) - idleFrom) / IDLE_SECONDS;
  const before = cpuSeconds(pid);
  const result = await runLoad(spec);
  const used = cpuSeconds(pid) - before - idlePerSecond * ((result.finishedAt - result.startedAt) / 1000);
  const answered = result.ok + result.non2xx;
  return {
    kind,
    perSecond: result.okPerSecond,
    cpuMicrosPerRequest: (used * 1e6) / Math.max(1, answered),
    idleMillisPerSecond: idlePerSecond * 1000,
    problems: result.non2xx + result.errors + result.timeouts,
  };
}
const IDLE_SECONDS = 3;

const logger = createLogger('silent');
const postgres = await startPostgres();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-profile-data-'));
const redis = await startPrivateRedis(path.join(dataDir, 'redis'), logger);
const lines: string[] = [
  `load average at start: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')}`,
];
try {
  const credentials = await installBenchShop(postgres.url, SHOP);
  const authorization = basicAuthorization(credentials);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let orderIds: string[] = [];
  for (const kind of kinds) {
    const dir = path.join(profileRoot, kind);
    fs.mkdirSync(dir, { recursive: true });
    const spawnedAt = Date.now();
    const { child } = await startBenchService({
      port,
      databaseEnv: postgres.doorstepEnv,
      redisUrl: redis.url,
      dataDir,
      env: values['cpu-only'] ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` },
    });
    if (orderIds.length === 0) orderIds = await createOrders(base, authorization, 100);
    // A short warm-up so the profile and the CPU figure are of the steady state, not of JIT compiling.
    await runLoad({ base, kind, seconds: 2, connections, orderIds, authorization });
    const loadFromMs = Date.now() - spawnedAt + IDLE_SECONDS * 1000;
    const service = await measure(child, kind, {
      base,
      kind,
      seconds,
      connections,
      orderIds,
      authorization,
      ...rate,
    });
    await child.stop();
    lines.push(
      `${kind}: service ${Math.round(service.perSecond)} req/s, ${Math.round(service.cpuMicrosPerRequest)} µs CPU per request (idle: ${service.idleMillisPerSecond.toFixed(0)} ms/s, taken off)${service.problems ? ` (${service.problems} failed)` : ''}`,
    );
    const floor = FLOORS[kind];
    if (floor) {
      const floorPort = await freePort();
      const floorDir = `${dir}-floor`;
      const floorSpawnedAt = Date.now();
      const floorChild = await startChild(
        floor.entry,
        floor.args,
        {
          PORT: String(floorPort),
          DATABASE_URL: postgres.url,
          ...(values['cpu-only'] ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${floorDir}` }),
        },
        `http://127.0.0.1:${floorPort}`,
      );
      const floorBase = `http://127.0.0.1:${floorPort}`;
      await runLoad({ base: floorBase, kind, seconds: 2, connections, orderIds, authorization });
      const floorFromMs = Date.now() - floorSpawnedAt + IDLE_SECONDS * 1000;
      const measured = await measure(floorChild, kind, {
        base: floorBase,
        kind,
        seconds,
        connections,
        orderIds,
        authorization,
        ...rate,
      });
      await floorChild.stop();
      lines.push(
        `${kind}: floor ${Math.round(measured.perSecond)} req/s, ${Math.round(measured.cpuMicrosPerRequest)} µs CPU per request; service/floor throughput ${(service.perSecond / measured.perSecond).toFixed(2)}×, CPU ${(service.cpuMicrosPerRequest / measured.cpuMicrosPerRequest).toFixed(2)}×`,
      );
      const floorFile =
        fs.existsSync(floorDir) && fs.readdirSync(floorDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
      if (floorFile)
        lines.push(
          `${kind} floor profile ${path.join(floorDir, floorFile)}\n${summarizeProfile(path.join(floorDir, floorFile), floorFromMs, Number(values.top))}`,
        );
    }
    // The main thread's profile (CPU.<date>.<time>.<pid>.0.*): worker threads write their own.
    const file = fs.readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (file)
      lines.push(
        `${kind} profile ${path.join(dir, file)}\n${summarizeProfile(path.join(dir, file), loadFromMs, Number(values.top))}`,
      );
  }
} finally {
  await redis.stop();
  postgres.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
lines.push(
  `load average at end: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')}`,
);
process.stdout.write(`${lines.join('\n')}\n`);

async function createOrders(base: string, authorization: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await createBenchOrder(base, authorization, i));
  return ids;
}
