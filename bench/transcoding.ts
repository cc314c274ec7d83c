/**
 * `npm run bench:transcoding [-- --seconds 60] [--runs 3]` (issue 27): what the playback rendition
 * costs a worker. Makes a 1080p, 30 fps H.264 + AAC input of `--seconds` (a phone's ordinary
 * recording, high bitrate), runs the real `makeRendition` on it `--runs` times, and prints, as
 * markdown for bench/results/latest.md: CPU seconds per minute of 1080p input (ffmpeg's and
 * ffprobe's, from this process's waited-for children), wall seconds, the peak resident memory of any
 * ffmpeg, the rendition's size per minute, and how many two-minute videos one worker makes per
 * minute at the default concurrency (VIDEO_PROCESSING_CONCURRENCY=1).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_RENDITION, renditionMaxBytes } from '../src/videos/rendition/plan.ts';
import { makeRendition } from '../src/videos/rendition/transcode.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, runs: { type: 'string', default: '3' } },
});
const seconds = Number(values.seconds);
const runs = Number(values.runs);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-bench-transcoding-'));

try {
  const input = path.join(work, 'input.mp4');
  const made = spawnSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=30:duration=${seconds}`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '16M', '-pix_fmt', 'yuv420p'],
      ...['-c:a', 'aac', '-b:a', '192k', input],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 },
  );
  if (made.status !== 0) throw new Error(`ffmpeg could not make the input: ${made.stderr?.toString()}`);
  const inputBytes = fs.statSync(input).size;

  const results: Array<{ cpu: number; wall: number; peakRss: number; bytes: number }> = [];
  for (let run = 0; run < runs; run++) {
    const out = fs.mkdtempSync(path.join(work, 'run-'));
    const cpuBefore = childrenCpuSeconds();
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, childrenRss('ffmpeg'))), 100);
    const started = performance.now();
    const rendition = await makeRendition(input, out, {
      settings: DEFAULT_RENDITION,
      maxSeconds: seconds + 5,
      kind: 'video messages',
      maxBytes: renditionMaxBytes(DEFAULT_RENDITION, seconds + 5),
      timeoutMs: 3_600_000,
    });
    clearInterval(sampler);
    results.push({
      cpu: childrenCpuSeconds() - cpuBefore,
      wall: (performance.now() - started) / 1000,
      peakRss,
      bytes: rendition.bytes,
    });
  }

  const perMinute = (value: number) => (value * 60) / seconds;
  const cpu = median(results.map((r) => r.cpu));
  const wall = median(results.map((r) => r.wall));
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const lines = [
    `Input: ${seconds} s of 1080p30 H.264 (16 Mbit/s) + AAC, ${mb(inputBytes)}; ${runs} runs on ${os.cpus().length} cores (load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}).`,
    '',
    '| Figure | Median | Runs |',
    '|---|---|---|',
    `| CPU seconds per minute of 1080p input | ${perMinute(cpu).toFixed(1)} | ${results.map((r) => perMinute(r.cpu).toFixed(1)).join(', ')} |`,
    `| Wall seconds per minute of input | ${perMinute(wall).toFixed(1)} | ${results.map((r) => perMinute(r.wall).toFixed(1)).join(', ')} |`,
    `| Peak ffmpeg memory (RSS) | ${mb(median(results.map((r) => r.peakRss)))} | ${results.map((r) => mb(r.peakRss)).join(', ')} |`,
    `| Rendition size per minute | ${mb(perMinute(median(results.map((r) => r.bytes))))} | ${results.map((r) => mb(perMinute(r.bytes))).join(', ')} |`,
    `| Two-minute videos per minute, one worker at concurrency 1 | ${(60 / (2 * perMinute(wall))).toFixed(2)} | |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

/** User + system CPU of this process's children that have been waited for (/proc/self/stat cutime, cstime). */
function childrenCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
  const ticks = Number(fields[13]) + Number(fields[14]);
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** The largest resident memory among this process's children named `name`. */
function childrenRss(name: string): number {
  let largest = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (!status.includes(`PPid:\t${process.pid}\n`) || !status.startsWith(`Name:\t${name}\n`)) continue;
      largest = Math.max(largest, Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // Gone.
    }
  }
  return largest;
}
