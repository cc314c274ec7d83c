import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RENDITION,
  renditionArguments,
  renditionSize,
  type ProbedVideo,
} from '../../src/videos/rendition/plan.ts';
import { probeVideo, rotationOf, UnplayableVideoError } from '../../src/videos/rendition/probe.ts';
import { makeRendition, type TranscodeLimits } from '../../src/videos/rendition/transcode.ts';
import { topLevelBoxes } from './mp4-boxes.ts';
import { runTool } from '../../src/process/run-tool.ts';

/** A lavfi picture source beside 3 s of tone (`extra` arguments between), as H.264 + AAC. */
const withTone = (source: string, output: string, extra: string[] = []) =>
  ffmpeg(
    ['-f', 'lavfi', '-i', source, '-f', 'lavfi', '-i', 'sine=d=3', ...extra].concat([
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      output,
    ]),
  );

/** `frames` frames of a lavfi source beside the tone (-frames:v ends the audio with them). */
const framesWithTone = (source: string, frames: number, output: string) =>
  withTone(source, output, ['-frames:v', String(frames)]);

/** The first frame's mean chroma saturation (ffmpeg's signalstats SATAVG). */
async function meanSaturation(file: string): Promise<number> {
  const { stdout } = await runTool(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', '-i', file, '-frames:v', '1', '-vf'].concat([
      'signalstats,metadata=print:key=lavfi.signalstats.SATAVG:file=-',
      '-f',
      'null',
      '-',
    ]),
    { timeoutMs: 30_000 },
  );
  return Number(/SATAVG=([\d.]+)/.exec(stdout)?.[1]);
}

/** A test input made on the spot (small and short: milliseconds of ffmpeg). */
const ffmpeg = (args: string[]) =>
  runTool('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { timeoutMs: 30_000 });

/**
 * Issue 27: one playback rendition from any upload. Real uploads made by ffmpeg
 * (test/videos/fixtures/uploads/make.sh) go through the real ffmpeg, and every output is read back
 * with ffprobe: H.264 (High or Main) in yuv420p, AAC exactly when the upload had audio, `moov`
 * before `mdat`, upright pixels, at most 30 fps and 1280 px on the long side.
 */
const uploads = path.join(import.meta.dirname, 'fixtures/uploads');
const limits: TranscodeLimits = {
  settings: DEFAULT_RENDITION,
  maxSeconds: 5,
  kind: 'video messages',
  maxBytes: 50 * 1024 * 1024,
  timeoutMs: 60_000,
};

let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-rendition-test-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

// No database here, only ffmpeg and files: the PostgreSQL pass (DATABASE_URL set) would repeat it unchanged.
describe.skipIf(Boolean(process.env.DATABASE_URL))('the playback rendition', () => {
  it.each([
    { file: 'portrait-hevc-rotated.mov', audio: true, upright: { width: 180, height: 320 }, fps: 30 },
    { file: 'chrome-vp8-opus.webm', audio: true, upright: { width: 320, height: 240 }, fps: 30 },
    { file: 'chrome-vp9-opus.webm', audio: true, upright: { width: 320, height: 240 }, fps: 30 },
    { file: 'h264-aac-60fps.mp4', audio: true, upright: { width: 320, height: 180 }, fps: 30 },
    { file: 'full-hd-silent.mp4', audio: false, upright: { width: 1280, height: 720 }, fps: 30 },
  ])(
    '$file → H.264 yuv420p (+ AAC), faststart, upright $upright.width×$upright.height',
    async (fixture) => {
      const source = await probeVideo(path.join(uploads, fixture.file), { timeoutMs: 30_000 });
      const rendition = await makeRendition(path.join(uploads, fixture.file), work, limits);

      const made = await probeVideo(rendition.file, { timeoutMs: 30_000 });
      expect(made.formatName).toContain('mp4');
      expect(made.videoStream.codec_name).toBe('h264');
      expect(['High', 'Main']).toContain(made.videoStream.profile);
      expect(made.videoStream.pix_fmt).toBe('yuv420p');
      expect(made.audioStream?.codec_name ?? null).toBe(fixture.audio ? 'aac' : null);
      // The pixels themselves are upright: no rotation left for a player to apply.
      expect({ width: made.width, height: made.height }).toEqual(fixture.upright);
      expect(rotationOf(made.videoStream)).toBe(0);
      expect(made.fps).toBeLessThanOrEqual(fixture.fps);
      const boxes = topLevelBoxes(rendition.file);
      expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
      expect(rendition.durationSeconds).toBeCloseTo(source.durationSeconds!, 0);
      expect(rendition.bytes).toBe(fs.statSync(rendition.file).size);
      // The poster is a JPEG frame of the rendition.
      expect(fs.readFileSync(rendition.posterFile).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      // Nothing half-written is left to be taken for the rendition.
      expect(fs.existsSync(path.join(work, 'rendition.partial.mp4'))).toBe(false);
    },
    60_000,
  );

  it('the source really was what the fixture claims: HEVC, rotated, moov after mdat', async () => {
    const source = await probeVideo(path.join(uploads, 'portrait-hevc-rotated.mov'), { timeoutMs: 30_000 });
    expect(source.videoStream.codec_name).toBe('hevc');
    expect(Math.abs(rotationOf(source.videoStream))).toBe(90);
    const boxes = topLevelBoxes(path.join(uploads, 'portrait-hevc-rotated.mov'));
    expect(boxes.indexOf('mdat')).toBeLessThan(boxes.indexOf('moov'));
  });

  it('a MediaRecorder WebM, whose container gives no length, gets it from the rendition', async () => {
    const recorded = path.join(import.meta.dirname, 'fixtures/recorded-vp8-opus.webm');
    expect((await probeVideo(recorded, { timeoutMs: 30_000 })).durationSeconds).toBeNull();
    const rendition = await makeRendition(recorded, work, limits);
    expect(rendition.durationSeconds).toBeGreaterThan(1.5);
    expect(rendition.durationSeconds).toBeLessThan(3);
  }, 60_000);

  it('a MediaRecorder WebM longer than the limit is stopped just past it and refused, saying so against the limit, not limit + slack (video probe)', async () => {
    const recorded = path.join(import.meta.dirname, 'fixtures/recorded-vp8-opus.webm');
    // About 2 s of video against a limit of 0.5 s (+ 1 s of slack): only the encode can find out.
    const started = performance.now();
    await expect(makeRendition(recorded, work, { ...limits, maxSeconds: 0.5 })).rejects.toThrow(
      /^The video is longer than 0:00; video messages can be up to 0:00\.$/,
    );
    // The partial output is never renamed to what gets stored (the caller deletes its directory).
    expect(fs.existsSync(path.join(work, 'rendition.mp4'))).toBe(false);
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('a corrupt file fails with a reason for the sender', async () => {
    await expect(makeRendition(path.join(uploads, 'corrupt.mp4'), work, limits)).rejects.toThrow(UnplayableVideoError);
  }, 60_000);

  it('a file that is not a video at all fails with a reason', async () => {
    const text = path.join(work, 'notes.mp4');
    fs.writeFileSync(text, 'not a video, only words');
    await expect(makeRendition(text, work, limits)).rejects.toThrow('The file is not a video we can read');
  });

  it('a still picture — a photo, a one-frame video, a photo with a voice memo — is refused with a reason, not retried (probe finding)', async () => {
    const png = path.join(work, 'photo.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', png]);
    const voiceMemo = path.join(work, 'photo-and-voice.mp4');
    await framesWithTone('color=c=blue:s=64x64', 1, voiceMemo);
    for (const file of [png, voiceMemo]) {
      const outcome = await makeRendition(file, fs.mkdtempSync(path.join(work, 'still-')), limits).catch((e) => e);
      expect(outcome).toBeInstanceOf(UnplayableVideoError);
      expect(outcome.message).toBe('The file is a still picture, not a video; please choose a video.');
    }
  }, 60_000);

  it('a video whose frames all come before the poster’s moment gets its poster from the first frame', async () => {
    const early = path.join(work, 'early-frames.mp4');
    // Three frames in the first tenth of a second, then 3 s of the tone: long enough to be a message.
    await withTone('testsrc2=s=64x64:r=30:d=0.1', early);
    const rendition = await makeRendition(early, work, limits);
    expect(fs.readFileSync(rendition.posterFile).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  }, 60_000);

  it.each([
    { transfer: 'smpte2084', what: 'PQ (HDR10)' },
    { transfer: 'arib-std-b67', what: "HLG (an iPhone's HDR)" },
  ])(
    '$what is tone-mapped to SDR BT.709, not cut to 8 bits grey and washed out (probe finding)',
    async ({ transfer }) => {
      const hdr = path.join(work, `hdr-${transfer}.mov`);
      await ffmpeg(
        ['-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=30:d=2', '-vf']
          .concat([`zscale=tin=bt709:t=${transfer}:pin=bt709:p=bt2020:min=bt709:m=bt2020nc:npl=100,format=yuv420p10le`])
          .concat(['-c:v', 'libx265', '-x265-params', 'log-level=error', '-tag:v', 'hvc1'])
          .concat(['-color_primaries', 'bt2020', '-color_trc', transfer, '-colorspace', 'bt2020nc', hdr]),
      );
      expect((await probeVideo(hdr, { timeoutMs: 30_000 })).hdr).toBe(true);
      const rendition = await makeRendition(hdr, work, limits);
      const made = await probeVideo(rendition.file, { timeoutMs: 30_000 });
      expect(made).toMatchObject({ hdr: false, videoStream: { pix_fmt: 'yuv420p', color_transfer: 'bt709' } });
      // The test pattern's colours, which an SDR encode of it shows at a mean saturation of ~108: cut
      // to 8 bits untouched they fall to ~22, tone-mapped they stay ~85.
      expect(await meanSaturation(rendition.file)).toBeGreaterThan(60);
    },
    60_000,
  );

  /** The mean loudness (dB) of a file's audio, by ffmpeg's volumedetect. */
  async function meanVolume(file: string): Promise<number> {
    const { stderr } = await runTool(
      'ffmpeg',
      ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0', '-af', 'volumedetect', '-f', 'null', '-'],
      { timeoutMs: 30_000 },
    );
    return Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
  }

  it('of two audio tracks, the one a player plays (the default) is kept, not a silent first one (probe finding)', async () => {
    const twoTracks = path.join(work, 'two-tracks.mp4');
    await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=s=160x90:r=30:d=3', '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=stereo']
        .concat(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:d=3', '-map', '0:v', '-map', '1:a'])
        .concat(['-map', '2:a', '-t', '3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'])
        .concat(['-disposition:a:0', '0', '-disposition:a:1', 'default', twoTracks]),
    );
    const rendition = await makeRendition(twoTracks, work, limits);
    expect(await meanVolume(rendition.file)).toBeGreaterThan(-40);
  }, 60_000);

  it('a cover picture stored before the video track is not taken for the video (probe finding)', async () => {
    const cover = path.join(work, 'cover.png');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', cover]);
    const plain = path.join(work, 'plain.mp4');
    await withTone('testsrc2=s=160x90:r=30:d=3', plain);
    const covered = path.join(work, 'covered.mp4');
    await ffmpeg([
      '-i',
      cover,
      '-i',
      plain,
      '-map',
      '0',
      '-map',
      '1',
      '-c',
      'copy',
      '-disposition:v:0',
      'attached_pic',
      covered,
    ]);
    const rendition = await makeRendition(covered, work, limits);
    expect({ width: rendition.width, height: rendition.height }).toEqual({ width: 160, height: 90 });
  }, 60_000);

  it('non-square pixels are shown at their shape: square pixels out, the long side capped (probe finding)', async () => {
    const anamorphic = path.join(work, 'sar43.mp4');
    await withTone('testsrc2=s=1440x1080:r=30:d=3', anamorphic, ['-vf', 'setsar=4/3']);
    const rendition = await makeRendition(anamorphic, work, limits);
    const made = await probeVideo(rendition.file, { timeoutMs: 30_000 });
    expect({ width: made.width, height: made.height, pixelAspect: made.pixelAspect }).toEqual({
      width: 1280,
      height: 720,
      pixelAspect: undefined,
    });
  }, 60_000);

  it('a recording whose frames turn mid-way (the phone turned) keeps each part’s shape, fitted on black, not stretched (probe finding)', async () => {
    const landscape = path.join(work, 'landscape.webm');
    const portrait = path.join(work, 'portrait.webm');
    const webm = ['-c:v', 'libvpx', '-b:v', '500k', '-c:a', 'libopus'];
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=c=white:s=640x480:r=30:d=2',
      '-f',
      'lavfi',
      '-i',
      'sine=d=2',
      ...webm,
      landscape,
    ]);
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=c=white:s=480x640:r=30:d=2',
      '-f',
      'lavfi',
      '-i',
      'sine=d=2',
      ...webm,
      portrait,
    ]);
    const list = path.join(work, 'list.txt');
    fs.writeFileSync(list, `file '${landscape}'\nfile '${portrait}'\n`);
    const turned = path.join(work, 'turned.webm');
    await ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', turned]);
    const rendition = await makeRendition(turned, work, limits);
    expect({ width: rendition.width, height: rendition.height }).toEqual({ width: 640, height: 480 });
    // The white picture fills the landscape part; in the portrait part it is 360 wide (480 × 480/640)
    // between black bars, where a stretched one would be white to the edge.
    const brightness = async (atSeconds: number, x: number) => {
      const { stdout } = await runTool(
        'ffmpeg',
        ['-hide_banner', '-loglevel', 'error', '-ss', String(atSeconds), '-i', rendition.file, '-frames:v', '1'].concat(
          [
            '-vf',
            `crop=40:40:${x}:220,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-`,
            '-f',
            'null',
            '-',
          ],
        ),
        { timeoutMs: 30_000 },
      );
      return Number(/YAVG=([\d.]+)/.exec(stdout)?.[1]);
    };
    expect(await brightness(1, 0)).toBeGreaterThan(200);
    expect(await brightness(3, 0)).toBeLessThan(40);
    expect(await brightness(3, 300)).toBeGreaterThan(200);
  }, 60_000);

  it('a file cut off in transfer is said to be cut off, not too large (probe finding)', async () => {
    const whole = path.join(work, 'whole.mp4');
    await withTone('testsrc2=s=320x240:r=30:d=3', whole, ['-movflags', '+faststart']);
    const cut = path.join(work, 'cut.mp4');
    const bytes = fs.readFileSync(whole);
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(makeRendition(cut, work, limits)).rejects.toThrow(
      /^The video seems cut off: it should last 0:03, but only 0:0[0-2] of it could be read\. Please send the whole file again\.$/,
    );
  }, 60_000);

  /** A 3 s message (video and its default audio) beside a non-default audio track of `unusedSeconds`. */
  async function withUnusedLongerTrack(unusedSeconds: number): Promise<string> {
    const file = path.join(work, `unused-${unusedSeconds}s-track.mp4`);
    await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=30:d=3', '-f', 'lavfi', '-i', 'sine=d=3', '-f', 'lavfi']
        .concat(['-i', `sine=f=200:d=${unusedSeconds}`, '-map', '0', '-map', '1', '-map', '2'])
        .concat(['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-disposition:a:1', '0', file]),
    );
    return file;
  }

  it('an unused audio track longer than the message does not make it look cut off (probe finding)', async () => {
    const file = await withUnusedLongerTrack(8);
    // Within the limit either way, so only the cut-off check could refuse it.
    const rendition = await makeRendition(file, work, { ...limits, maxSeconds: 10 });
    expect(rendition.durationSeconds).toBeGreaterThan(2.5);
    expect(rendition.durationSeconds).toBeLessThan(3.5);
  }, 60_000);

  it('an unused audio track past the limit does not make a short message too long (probe finding)', async () => {
    const file = await withUnusedLongerTrack(60);
    const rendition = await makeRendition(file, work, limits);
    expect(rendition.durationSeconds).toBeCloseTo(3, 0);
  }, 60_000);

  it('BT.2020 colours that are not HDR are converted to BT.709 and tagged so, not left tagged BT.2020 in 8 bits (probe finding)', async () => {
    const wide = path.join(work, 'bt2020-sdr.mov');
    await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=30:d=2', '-vf']
        .concat(['zscale=tin=bt709:pin=bt709:min=bt709:p=bt2020:m=bt2020nc:t=bt2020-10,format=yuv420p10le'])
        .concat(['-c:v', 'libx265', '-x265-params', 'log-level=error', '-tag:v', 'hvc1'])
        .concat(['-color_primaries', 'bt2020', '-color_trc', 'bt2020-10', '-colorspace', 'bt2020nc', wide]),
    );
    expect(await probeVideo(wide, { timeoutMs: 30_000 })).toMatchObject({ hdr: false, wideGamut: true });
    const rendition = await makeRendition(wide, work, limits);
    const made = await probeVideo(rendition.file, { timeoutMs: 30_000 });
    expect(made.videoStream).toMatchObject({ pix_fmt: 'yuv420p', color_primaries: 'bt709', color_transfer: 'bt709' });
    // The test pattern's colours (~108 in SDR) kept.
    expect(await meanSaturation(rendition.file)).toBeGreaterThan(90);
  }, 60_000);

  it('a video longer than the limit fails before any encoding, saying both lengths', async () => {
    await expect(makeRendition(path.join(uploads, 'eight-seconds.mp4'), work, limits)).rejects.toThrow(
      'The video is 0:08 long; video messages can be up to 0:05.',
    );
  });

  it('an encode past its deadline is killed and fails with a reason, leaving no rendition', async () => {
    await expect(
      makeRendition(path.join(uploads, 'full-hd-silent.mp4'), work, { ...limits, timeoutMs: 1 }),
    ).rejects.toThrow(/took longer than 0 s/);
    expect(fs.existsSync(path.join(work, 'rendition.mp4'))).toBe(false);
  }, 60_000);

  it('a rendition that would pass its size limit fails instead of being cut short', async () => {
    await expect(
      makeRendition(path.join(uploads, 'chrome-vp8-opus.webm'), work, { ...limits, maxBytes: 8_000 }),
    ).rejects.toThrow('The video is too large to send, even compressed');
    expect(fs.existsSync(path.join(work, 'rendition.mp4'))).toBe(false);
  }, 60_000);

  it('a stop (the worker shutting down) kills ffmpeg and is not taken for the video’s fault', async () => {
    const stop = new AbortController();
    const made = makeRendition(path.join(uploads, 'full-hd-silent.mp4'), work, { ...limits, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    const error = await made.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnplayableVideoError);
  }, 60_000);
});

describe('the rendition plan', () => {
  const video: ProbedVideo = { width: 3840, height: 2160, rotation: -90, fps: 60, hasAudio: true };

  it('turns a rotated 4K frame upright and caps its long side, with even sides', () => {
    expect(renditionSize(video, DEFAULT_RENDITION)).toEqual({ width: 720, height: 1280 });
    expect(renditionSize({ ...video, width: 1001, height: 563, rotation: 0 }, DEFAULT_RENDITION)).toEqual({
      width: 1000,
      height: 562,
    });
    expect(renditionSize({ ...video, width: 640, height: 360, rotation: 180 }, DEFAULT_RENDITION)).toEqual({
      width: 640,
      height: 360,
    });
  });

  it('lowers the frame rate only when it is above the cap, and maps audio only when there is some', () => {
    const args = (overrides: Partial<typeof video>) =>
      renditionArguments({
        input: 'in',
        output: 'out',
        video: { ...video, ...overrides },
        settings: DEFAULT_RENDITION,
        maxBytes: 1000,
        maxSeconds: 121,
      }).join(' ');
    expect(args({})).toContain('fps=30');
    expect(args({ fps: 24 })).not.toContain('fps=');
    expect(args({})).toContain('-map 0:a:0');
    expect(args({ hasAudio: false })).toContain('-an');
    // A 96 kHz recording is lowered to the 48 kHz every AAC decoder takes (probe finding); 44.1 kHz stays.
    expect(args({ audioSampleRate: 96_000 })).toContain('-ar 48000');
    expect(args({ audioSampleRate: 44_100 })).not.toContain('-ar ');
    expect(args({ hasAudio: false })).not.toContain('0:a:0');
    expect(args({})).toContain('-movflags +faststart');
    expect(args({})).toContain('-maxrate 2000k');
  });
});
