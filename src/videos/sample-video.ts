import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = new Map<number, Buffer>();

/**
 * A real, small MP4 (H.264, 64×48 test pattern at 10 frames a second, no audio) of the given
 * length, made by ffmpeg: what `shopify simulate` uploads as the shopper's recording, and what tests
 * use as a known duration (to a tenth of a second). Each length is made once per process.
 */
export function progressiveVideo(seconds: number): { buffer: Buffer } {
  const cached = made.get(seconds);
  if (cached) return { buffer: cached };
  // A file, not a pipe: a classic MP4 (moov in front) needs a seekable output.
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-sample-'));
  const file = path.join(directory, 'sample.mp4');
  const result = spawnSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=64x48:rate=10:duration=${seconds}`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      file,
    ],
    { timeout: 60_000 },
  );
  try {
    if (result.error || result.status !== 0)
      throw new Error(
        `ffmpeg could not make the sample video (${result.error?.message ?? result.stderr.toString().trim()}); is ffmpeg installed?`,
      );
    const buffer = fs.readFileSync(file);
    made.set(seconds, buffer);
    return { buffer };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
