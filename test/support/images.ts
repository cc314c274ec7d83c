import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runTool } from '../../src/videos/rendition/run-tool.ts';

/** An image of the given size and format, made by ffmpeg: a test pattern (PNG with alpha). */
export async function testImage(width: number, height: number, extension: 'png' | 'jpg' | 'webp'): Promise<Buffer> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'doorstep-test-image-'));
  const file = path.join(directory, `image.${extension}`);
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
        `testsrc2=size=${width}x${height}`,
        '-frames:v',
        '1',
        ...(extension === 'png' ? ['-pix_fmt', 'rgba'] : []),
        file,
      ],
      { timeoutMs: 30_000 },
    );
    return await fs.readFile(file);
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}
