import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEmailPoster } from '../../src/videos/email-poster.ts';
import { runTool } from '../../src/process/run-tool.ts';
import { testImage } from '../support/images.ts';

/** Issue 29: the e-mail's poster has its play button drawn into the image, in the store's accent. */
let directory: string;
beforeAll(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'doorstep-email-poster-test-'));
});
afterAll(async () => {
  await fs.rm(directory, { recursive: true, force: true });
});

/** The image's size, and the RGB of one pixel, as ffmpeg decodes it. */
async function inspect(jpeg: Buffer, x: number, y: number) {
  const file = path.join(directory, `${Date.now()}-${x}-${y}.jpg`);
  await fs.writeFile(file, jpeg);
  const probe = JSON.parse(
    (await runTool('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', file], { timeoutMs: 20_000 })).stdout,
  ) as { streams: Array<{ width: number; height: number }> };
  const raw = `${file}.rgb`;
  await runTool(
    'ffmpeg',
    [
      '-v',
      'error',
      '-y',
      '-i',
      file,
      '-vf',
      `format=rgb24,crop=1:1:${x}:${y}`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      raw,
    ],
    { timeoutMs: 20_000 },
  );
  const [r, g, b] = await fs.readFile(raw);
  return { width: probe.streams[0]!.width, height: probe.streams[0]!.height, rgb: [r!, g!, b!] };
}

/** JPEG's chroma subsampling and the button's slight translucency move a colour a little. */
const near = (actual: number[], expected: number[], tolerance = 40) =>
  actual.every((value, index) => Math.abs(value - expected[index]!) <= tolerance);

describe('the e-mail poster', () => {
  it('is the frame at twice the e-mail width with a button in the accent and its triangle in white', async () => {
    const poster = await makeEmailPoster(await testImage(640, 360, 'jpg'), '#1a5e63');
    const { width, height } = await inspect(poster, 0, 0);
    expect({ width, height }).toEqual({ width: 1104, height: 622 });
    // Inside the disc, left of the triangle: the accent. The triangle's middle: white.
    expect(near((await inspect(poster, 552 - 100, 311)).rgb, [0x1a, 0x5e, 0x63])).toBe(true);
    expect(near((await inspect(poster, 575, 311)).rgb, [255, 255, 255])).toBe(true);
  });

  it('a pale accent gets a dark triangle; a portrait frame is cropped to 4:5', async () => {
    const poster = await makeEmailPoster(await testImage(360, 640, 'jpg'), '#ffe27a');
    const { width, height } = await inspect(poster, 0, 0);
    expect({ width, height }).toEqual({ width: 1104, height: 1380 });
    expect(near((await inspect(poster, 575, 690)).rgb, [0x2b, 0x21, 0x18])).toBe(true);
  });
});
