import { spawn, type ChildProcess } from 'node:child_process';
import { stopChild } from '../../test/support/processes.ts';
import { projectRoot } from './load.ts';

export interface Child {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a TypeScript entry point in its own Node process (the same Node as the bench: 24, from the
 * `node` devDependency) and resolves once `readyUrl` answers at all — any status counts, a floor has
 * no health route. The last few KB of its output are kept for the error when it fails.
 */
export async function startChild(
  entry: string,
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
  timeoutMs = 60_000,
): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // A bench that dies must not leave a server holding a port.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopping = false;
  // A server that dies under load turns a measurement into connection errors: say why it died.
  child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(`${entry} exited unexpectedly (${signal ?? `code ${code}`}); its last output:\n${output}\n`);
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not answer at ${readyUrl} within ${timeoutMs / 1000} s:\n${output}`);
    }
    // One probe may not outlast the whole wait: a server that accepts and never answers fails it.
    const answered = await fetch(readyUrl, { signal: AbortSignal.timeout(2000) }).then(
      () => true,
      () => false,
    );
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    process: child,
    output: () => output,
    stop: () => {
      process.off('exit', killOnExit);
      stopping = true;
      // SIGTERM, SIGKILL after 20 s, and a failure naming the entry if even that does not end it.
      return stopChild(child, entry);
    },
  };
}

/**
 * Runs a TypeScript entry point to its end and returns what it printed on stdout. Past `timeoutMs`
 * the child is killed and the promise rejects with what it had printed on stderr: a step that hangs
 * becomes a reported failure, not a bench that never ends.
 */
export function runToEnd(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, timeoutMs)
      : undefined;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      process.off('exit', killOnExit);
      if (timedOut)
        reject(
          new Error(
            `${entry} did not finish within ${timeoutMs / 1000} s and was stopped${stderr ? `: ${stderr}` : ''}`,
          ),
        );
      else if (code === 0) resolve(stdout);
      else reject(new Error(`${entry} exited with ${code}: ${stderr}`));
    });
  });
}
