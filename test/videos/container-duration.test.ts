import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readVideoDuration, UnreadableVideoError } from '../../src/videos/container-duration.ts';
import { progressiveVideo } from '../../src/videos/sample-video.ts';
import { fixture, fixturePath } from './video-test-app.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-duration-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function write(name: string, bytes: Buffer): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const progressiveMp4 = (handler: 'vide' | 'soun', seconds: number) => progressiveVideo(seconds, handler).buffer;

describe('reading the real duration from the container', () => {
  it.each([
    ['recorded-vp8-opus.webm', 'matroska'],
    ['recorded-vp8-silent.webm', 'matroska'],
    ['recorded-avc1-opus.mp4', 'isobmff'],
    ['recorded-avc1-silent.mp4', 'isobmff'],
  ])(
    'reads about 2 s from Chromium MediaRecorder output %s (no Duration element / fragmented)',
    async (name, container) => {
      const result = await readVideoDuration(fixturePath(name));
      expect(result.container).toBe(container);
      expect(result.durationTenths).toBeGreaterThanOrEqual(18);
      expect(result.durationTenths).toBeLessThanOrEqual(21);
    },
  );

  it('reads the movie header of a progressive MP4', async () => {
    expect(await readVideoDuration(write('progressive.mp4', progressiveMp4('vide', 12.4)))).toEqual({
      durationTenths: 124,
      container: 'isobmff',
    });
  });

  it('rejects an MP4 with no video track', async () => {
    await expect(readVideoDuration(write('audio-only.m4a', progressiveMp4('soun', 3)))).rejects.toThrow(
      new UnreadableVideoError('The file has no video track.'),
    );
  });

  it.each([
    ['text', Buffer.from('hello, this is not a video\n')],
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251))],
    ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
  ])('fails cleanly on %s', async (name, bytes) => {
    await expect(readVideoDuration(write(`${name}.bin`, bytes))).rejects.toThrow(
      'The file is not an MP4, QuickTime or WebM video.',
    );
  });

  it('fails cleanly on a WebM cut off inside its header and an MP4 cut off before its movie header', async () => {
    await expect(
      readVideoDuration(write('cut.webm', fixture('recorded-vp8-opus.webm').subarray(0, 60))),
    ).rejects.toBeInstanceOf(UnreadableVideoError);
    await expect(
      readVideoDuration(write('cut.mp4', fixture('recorded-avc1-opus.mp4').subarray(0, 40))),
    ).rejects.toBeInstanceOf(UnreadableVideoError);
  });

  it('fails cleanly on an MP4 whose boxes do not add up', async () => {
    const broken = progressiveMp4('vide', 5);
    broken.writeUInt32BE(0x7fffffff, broken.readUInt32BE(0)); // the moov box (after ftyp) claims 2 GB
    await expect(readVideoDuration(write('broken.mp4', broken))).rejects.toThrow(/damaged/);
  });
});
