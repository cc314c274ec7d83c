import { spawn } from 'node:child_process';
import path from 'node:path';

export const benchRoot = path.resolve(import.meta.dirname, '..');
export const projectRoot = path.resolve(benchRoot, '..');

/** The kinds of request the load process knows how to make (bench/support/load-process.ts). */
export type RequestKind = 'hello' | 'get-order' | 'put-price' | 'put-carrier' | 'orders-create-webhook';

export interface LoadSpec {
  base: string;
  kind: RequestKind;
  seconds: number;
  connections: number;
  /** Fixed request rate (the webhook burst); unset → as fast as answers come. */
  overallRate?: number;
  /** Orders the GET and PUT requests go to, in turn. */
  orderIds?: string[];
  /** `Basic …` for /v1. */
  authorization?: string;
  /** Signing for webhooks. */
  shop?: string;
  secret?: string;
}

export interface LoadResult {
  /** 2xx answers per second of the run. */
  okPerSecond: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  startedAt: number;
  finishedAt: number;
}

/**
 * Runs autocannon in its own process, so the load generator never shares a thread (or a garbage
 * collector) with what it measures. The child prints one JSON LoadResult.
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(benchRoot, 'support/load-process.ts'), JSON.stringify(spec)],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load process for ${spec.kind} exited with ${code}: ${stderr}`));
      resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}

/** Says what makes a load result untrustworthy, or undefined when every answer was a 2xx. */
export function loadProblem(result: LoadResult): string | undefined {
  const parts = [
    result.non2xx > 0 ? `${result.non2xx} answers were not 2xx` : '',
    result.errors > 0 ? `${result.errors} connection errors` : '',
    result.timeouts > 0 ? `${result.timeouts} timeouts` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
