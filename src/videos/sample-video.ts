import { ffmpegToBytes } from '../process/run-tool.ts';

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
  return ffmpegToBytes({
    args: [
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
    ],
    output: 'sample.mp4',
    timeoutMs: MAKE_TIMEOUT_MS,
  });
}
