import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, onTestFailed } from 'vitest';
import { freePort } from '../../src/net/free-port.ts';
import { withDeadline } from '../../src/process/deadline.ts';

export const projectRoot = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
/** A CLI command's whole run, start-up (tsx, migrations on a fresh PGlite) included. */
const CLI_TIMEOUT_MS = 120_000;
/** How long a stopped process gets for its graceful shutdown before SIGKILL, and SIGKILL before we give up. */
const STOP_GRACE_MS = 20_000;
const KILL_GRACE_MS = 5_000;

/** Runs `npm run cli -- …` the way a person would, with its own environment. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      // A command that hangs is killed and reported, not waited for.
      timeout: CLI_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number | null; killed?: boolean };
    if (failed.killed)
      return {
        stdout: failed.stdout,
        stderr: `${failed.stderr}\ncli ${args.join(' ')}: killed after its deadline of ${CLI_TIMEOUT_MS / 1000} s`,
        code: 124,
      };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code ?? 1 };
  }
}

export { freePort };

export interface DoorstepProcess {
  child: ChildProcess;
  /**
   * SIGTERM to the process and waits for it to exit; SIGKILL after 20 s, and a failure naming the
   * process if even that does not end it within 5 s more.
   */
  stop(): Promise<void>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/**
 * Starts a Doorstep entry point (`bin/start.ts` is `npm start`, `bin/worker.ts` is `npm run
 * worker`). `detached` gives it a process group of its own, as a service manager would, so a test
 * can signal the whole group (`process.kill(-pid, …)`).
 */
export function spawnDoorstep(
  entry: 'bin/start.ts' | 'bin/worker.ts',
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): DoorstepProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    output: () => output,
    stop: () => stopChild(child, `${entry} (pid ${child.pid})`),
  };
}

/** SIGTERM, then SIGKILL after STOP_GRACE_MS; fails if the process is still there KILL_GRACE_MS later. */
export async function stopChild(child: ChildProcess, name: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  try {
    await withDeadline(exited, STOP_GRACE_MS, `${name} to exit after SIGTERM`);
  } catch {
    child.kill('SIGKILL');
    await withDeadline(exited, KILL_GRACE_MS, `${name} to exit after SIGKILL`);
  }
}

/** What a process printed, without its access-log lines (one per request), the last `maxChars` of it. */
export function outputWithoutAccessLog(proc: DoorstepProcess, maxChars: number): string {
  return proc
    .output()
    .split('\n')
    .filter((line) => !line.includes('"msg":"request"'))
    .join('\n')
    .slice(-maxChars);
}

/** Resolves once the process has printed a line matching `pattern` (fails if it exits first). */
export function waitForOutput(proc: DoorstepProcess, pattern: RegExp, timeoutMs = 90_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!pattern.test(proc.output())) return false;
      done();
      resolve();
      return true;
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`process exited with ${code} before printing ${pattern}:\n${proc.output()}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${proc.output()}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      proc.child.stdout!.off('data', check);
      proc.child.stderr!.off('data', check);
      proc.child.off('exit', onExit);
    };
    proc.child.stdout!.on('data', check);
    proc.child.stderr!.on('data', check);
    proc.child.once('exit', onExit);
    check();
  });
}

/** Resolves with how the process ended and how long after the call that was; fails past `timeoutMs`. */
export function waitForExit(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }> {
  const since = Date.now();
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return resolve({ code: child.exitCode, signal: child.signalCode, afterMs: 0 });
    const timer = setTimeout(
      () => reject(new Error(`process ${child.pid} still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, afterMs: Date.now() - since });
    });
  });
}

/** Starts `npm start`'s entry point and resolves once its /healthz answers on env.PORT. */
export async function startServerProcess(
  env: Record<string, string> & { PORT: string },
  options: { detached?: boolean } = {},
): Promise<DoorstepProcess> {
  const server = spawnDoorstep('bin/start.ts', env, options);
  const { child } = server;
  await new Promise<void>((resolve, reject) => {
    // PGlite's first open (WebAssembly compile, then every migration) has taken over 45 s on this
    // 2-core machine under a load average of 20; a start that fails still fails, only later.
    const timer = setTimeout(() => {
      clearInterval(check);
      // A server that did not start in time is not left running without a parent to stop it (a
      // detached one with its whole group: its private redis-server too).
      if (options.detached) process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGKILL');
      reject(new Error(`server did not answer /healthz within 90 s (killed):\n${server.output()}`));
    }, 90_000);
    const check = setInterval(() => {
      fetch(`http://127.0.0.1:${env.PORT}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
        (response) => {
          if (!response.ok) return;
          clearInterval(check);
          clearTimeout(timer);
          resolve();
        },
        () => {},
      );
    }, 200);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${server.output()}`));
    });
  });
  return server;
}

/** A running `npm start` (or web-only) process of a test, with what the test needs to talk to it. */
export interface RunningDoorstep {
  proc: DoorstepProcess;
  /** `http://127.0.0.1:PORT`, also its PUBLIC_URL. */
  base: string;
  dataDir: string;
  /** The environment it runs with: what the CLI and the test's own database reads need too. */
  env: Record<string, string> & { PORT: string };
  /**
   * `npm run worker` beside it (run it with `WORKERS: 'off'`), on the same environment plus `env`,
   * reaching the web process's carrier sandbox; resolves once its workers run. Stopped by `stop()`.
   */
  startWorker(env?: Record<string, string>): Promise<DoorstepProcess>;
  /** The worker processes `startWorker` started, in order (killed ones too). */
  workers: readonly DoorstepProcess[];
  /** Stops its workers and the process (SIGTERM, SIGKILL after a grace), and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * The one way a test starts Doorstep as a real process (issue 32): a data directory of its own, a
 * free port as its PUBLIC_URL, the carrier sandbox, its own private redis-server (`REDIS_URL` is
 * emptied), info logs — plus the test's `env` (SMTP_URL, DATABASE_URL, WORKERS …) over those.
 * `detached` gives it a process group of its own, so the test can signal the whole group.
 */
export async function startDoorstep(
  options: { env?: Record<string, string>; detached?: boolean; name?: string } = {},
): Promise<RunningDoorstep> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `doorstep-${options.name ?? 'process'}-`));
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      DATA_DIR: dataDir,
      PUBLIC_URL: base,
      REDIS_URL: '',
      CARRIER_SANDBOX: 'on',
      LOG_LEVEL: 'info',
      ...options.env,
      PORT: String(port),
    };
    const proc = await startServerProcess(env, options.detached ? { detached: true } : {});
    const workers: DoorstepProcess[] = [];
    return {
      proc,
      base,
      dataDir,
      env,
      workers,
      startWorker: async (extra = {}) => {
        // Its own PORT: a worker listens on nothing, and its sandbox URL must not come from it.
        const worker = spawnDoorstep('bin/worker.ts', {
          ...env,
          CARRIER_SANDBOX_URL: `${base}/sandbox`,
          ...extra,
          PORT: String(await freePort()),
        });
        workers.push(worker);
        await waitForOutput(worker, /"msg":"workers started"/);
        return worker;
      },
      stop: async () => {
        try {
          await Promise.all(workers.map((worker) => worker.stop()));
          await proc.stop();
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * For the file's tests: Doorstep started as a process with `options()` (read once the file's earlier
 * starters ran: a provider's URL, a database), stopped after them. Its own hook timeout: a first start
 * on a loaded machine takes longer than the suite's default.
 */
export function doorstepForFile(
  options: () => Parameters<typeof startDoorstep>[0],
  use: (doorstep: RunningDoorstep) => void,
): void {
  let doorstep: RunningDoorstep | undefined;
  beforeAll(async () => {
    doorstep = await startDoorstep(options());
    use(doorstep);
  }, 120_000);
  afterAll(async () => {
    await doorstep?.stop();
  });
}

/**
 * Prints the web process's output and each worker's when the current test fails (their access logs
 * left out): what a process test that kills and restarts processes needs to be read afterwards.
 */
export function printOutputOnFailure(doorstep: RunningDoorstep): void {
  onTestFailed(() => {
    console.error(`web:\n${outputWithoutAccessLog(doorstep.proc, 8_000)}`);
    for (const [index, worker] of doorstep.workers.entries())
      console.error(`worker ${index + 1}:\n${outputWithoutAccessLog(worker, 8_000)}`);
  });
}
