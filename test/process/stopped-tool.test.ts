import { Writable } from 'node:stream';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobProcessor } from '../../jobs/run-job.ts';
import { createLogger } from '../../src/logger.ts';
import { runTool, ToolFailedError, ToolStoppedError } from '../../src/process/run-tool.ts';

/**
 * A worker's shutdown kills the ffmpeg its video jobs run (an encode can take minutes; the job runs
 * again elsewhere). A black-box probe saw that stop logged as two failed jobs (level 40, with stacks):
 * it is told apart from a real failure and logged as what it is.
 */
describe('a tool stopped by the shutdown', () => {
  // A real ffmpeg that would run for a minute: a synthetic source into the null muxer.
  const longRun = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-re',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=60',
    '-f',
    'null',
    '-',
  ];

  it('rejects with ToolStoppedError when the signal aborts, and with a plain failure at its deadline', async () => {
    const stopping = new AbortController();
    const run = runTool('ffmpeg', longRun, { timeoutMs: 30_000, signal: stopping.signal });
    setTimeout(() => stopping.abort(), 300);
    await expect(run).rejects.toBeInstanceOf(ToolStoppedError);
    await expect(runTool('ffmpeg', longRun, { timeoutMs: 30_000, signal: stopping.signal })).rejects.toThrow(
      'ffmpeg was not started: stopping',
    );
    const late = await runTool('ffmpeg', longRun, { timeoutMs: 300 }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(ToolFailedError);
    expect(late).not.toBeInstanceOf(ToolStoppedError);
  });

  it('is logged at info by the job runner, not as a failed job, and still thrown so the job runs again', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger('info', sink);
    const job = { id: '1', data: {}, attemptsMade: 0 } as unknown as Job;
    const stopped = jobProcessor('process-video', z.object({}), logger, () =>
      Promise.reject(new ToolStoppedError('ffmpeg', true)),
    );
    await expect(stopped(job)).rejects.toBeInstanceOf(ToolStoppedError);
    const failing = jobProcessor('process-video', z.object({}), logger, () =>
      Promise.reject(new Error('database down')),
    );
    await expect(failing(job)).rejects.toThrow('database down');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [30, 'job stopped by the shutdown; it runs again'],
      [40, 'job failed'],
    ]);
  });
});
