import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** ffmpeg or ffprobe ended badly: a non-zero exit, a signal, its deadline, or a stop. */
export class ToolFailedError extends Error {
  override name = 'ToolFailedError';
  constructor(
    message: string,
    /** The exit code; null when it was killed (deadline, stop) rather than failing by itself. */
    readonly exitCode: number | null,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/**
 * The tool was killed because its caller is stopping (a worker's shutdown), not because of its input:
 * the job that ran it runs again elsewhere, and the stop is not a failure to log as one.
 */
export class ToolStoppedError extends ToolFailedError {
  override name = 'ToolStoppedError';
  constructor(tool: string, started: boolean) {
    super(started ? `${tool} was stopped: the worker is stopping` : `${tool} was not started: stopping`, null, false);
  }
}

export class ToolMissingError extends Error {
  override name = 'ToolMissingError';
  constructor(tool: string) {
    super(
      `${tool} is not installed. Debian/Ubuntu: apt-get install ffmpeg (\`npm ci\` does it itself when run as root); macOS: brew install ffmpeg.`,
    );
  }
}

/** Video work gives way to requests: transcoding is CPU-bound, serving pages is not. */
const NICENESS = 10;
/** Enough of ffprobe's JSON for any real file, and of ffmpeg's error text for a reason. */
const MAX_STDOUT = 4 * 1024 * 1024;
const STDERR_TAIL = 4000;

/**
 * Runs ffmpeg or ffprobe with a wall-clock deadline (SIGKILL past it), at a lower CPU priority, and
 * killed when `signal` aborts (the worker's shutdown). Never waits for ever, never leaves the child
 * behind; resolves with its stdout on exit 0.
 */
export function runTool(
  tool: 'ffmpeg' | 'ffprobe',
  args: string[],
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new ToolStoppedError(tool, false));
    const child = spawn(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_STDOUT) stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL)));
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.once('spawn', () => {
      try {
        os.setPriority(child.pid!, NICENESS);
      } catch {
        // Not permitted here: it runs at our priority.
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      reject(error.code === 'ENOENT' ? new ToolMissingError(tool) : error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      if (code === 0) return resolve({ stdout, stderr });
      if (options.signal?.aborted && !timedOut) return reject(new ToolStoppedError(tool, true));
      const why = timedOut
        ? `did not finish within ${Math.round(options.timeoutMs / 1000)} s`
        : signal
          ? `was stopped (${signal})`
          : `failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
      reject(new ToolFailedError(`${tool} ${why}`, timedOut ? null : code, timedOut));
    });
  });
}

/**
 * One ffmpeg run from bytes (or from the arguments' own input, such as `-f lavfi`) to the bytes of one
 * output file: a sample video, a logo, an e-mail poster. Files, not pipes (an MP4 with its index in
 * front needs a seekable output), in a private temporary directory that is removed either way.
 */
export async function ffmpegToBytes(spec: {
  /** The input, and the demuxer that reads it: ffmpeg is told what it is, never left to guess. */
  input?: { bytes: Buffer; format: string };
  /** Everything between the input and the output: filters, codecs, `-frames:v`, `-f`. */
  args: string[];
  /** The output file's name (its extension names the muxer unless `args` do). */
  output: string;
  timeoutMs: number;
}): Promise<Buffer> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'doorstep-ffmpeg-'));
  try {
    const input = path.join(directory, 'input');
    if (spec.input) await fs.writeFile(input, spec.input.bytes);
    const output = path.join(directory, spec.output);
    await runTool(
      'ffmpeg',
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        ...(spec.input ? ['-f', spec.input.format, '-i', input] : []),
        ...spec.args,
        output,
      ],
      { timeoutMs: spec.timeoutMs },
    );
    return await fs.readFile(output);
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}
