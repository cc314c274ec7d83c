import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runTool } from './rendition/run-tool.ts';

const made = new Map<number, Promise<Buffer>>();

/** Making a few seconds of 64×48 video takes well under a second; this is the most it may take. */
const MAKE_TIMEOUT_MS = 60_000;

/**
 * A real, small MP4 (H.264, 64×48 test pattern at 10 frames a second, no audio) of the given
 * length, made by ffmpeg: the test gift's video, what `shopify simulate` uploads as the shopper's
 * recording, and what tests use as a known duration (to a tenth of a second). Each length is made
 * once per process, without blocking it (the test gift makes it on a web request).
 */
export function sampleVideo(seconds: number): Promise<Buffer> {
  let video = made.get(seconds);
  if (!video) {
    video = makeSampleVideo(seconds);
    made.set(seconds, video);
    // A failure is not kept: the next ask tries again.
    video.catch(() => made.delete(seconds));
  }
  return video;
}

async function makeSampleVideo(seconds: number): Promise<Buffer> {
  // A file, not a pipe: a classic MP4 (moov in front) needs a seekable output.
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'doorstep-sample-'));
  const file = path.join(directory, 'sample.mp4');
  try {
    await runTool(
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
      { timeoutMs: MAKE_TIMEOUT_MS },
    );
    return await fs.readFile(file);
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}
