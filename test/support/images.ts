import { ffmpegToBytes } from '../../src/process/run-tool.ts';

/** An image of the given size and format, made by ffmpeg: a test pattern (PNG with alpha). */
export function testImage(width: number, height: number, extension: 'png' | 'jpg' | 'webp'): Promise<Buffer> {
  return ffmpegToBytes({
    args: [
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${width}x${height}`,
      '-frames:v',
      '1',
      ...(extension === 'png' ? ['-pix_fmt', 'rgba'] : []),
    ],
    output: `image.${extension}`,
    timeoutMs: 30_000,
  });
}
