import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/net/free-port.ts';

export const projectRoot = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `npm run cli -- …` the way a person would, with its own environment. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

export { freePort };

/** Starts `npm start`'s entry point and resolves once its /healthz answers on env.PORT. */
export async function startServerProcess(
  env: Record<string, string> & { PORT: string },
): Promise<{ child: ChildProcess; stop(): Promise<void>; output(): string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 45_000);
    const check = setInterval(() => {
      fetch(`http://127.0.0.1:${env.PORT}/healthz`).then(
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
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
