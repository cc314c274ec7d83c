import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideo, rotationOf } from '../../src/videos/rendition/probe.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { topLevelBoxes } from './mp4-boxes.ts';
import { fixture, videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';

/**
 * Issue 27, "done when": a portrait HEVC .mov and a VP9/Opus WebM uploaded through
 * `PUT /v1/orders/{id}/video` come back, at the order's `playback_url` + `/video`, as `video/mp4`
 * that is H.264 yuv420p + AAC, faststart and upright — read back with ffprobe. Through the real
 * app, the real video-processing job (BullMQ on the run's Redis) and local storage.
 */
let app: VideoTestApp;
let store: TestAccount;
let work: string;

videoTestAppForFile({ queue: 'bullmq' }, (started) => ({ app, store } = started));
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-playback-test-'));
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

async function playbackOf(upload: string, contentType: string): Promise<{ file: string; type: string | null }> {
  const order = (await store.request('POST', '/v1/orders', validOrder)).body;
  const put = await store.request('PUT', `/v1/orders/${order.id}/video`, fixture(upload), {
    'Content-Type': contentType,
  });
  expect(put.status).toBe(200);
  await expect
    .poll(async () => (await store.request('GET', `/v1/orders/${order.id}`)).body.video_processed, { timeout: 30_000 })
    .toBe('1');
  // The playback URL names the public host; the path is what this app serves.
  const response = await fetch(`${app.baseUrl}${new URL(order.playback_url).pathname}/video`);
  expect(response.status).toBe(200);
  const file = path.join(work, `${order.id}.mp4`);
  fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return { file, type: response.headers.get('content-type') };
}

describe('what a recipient’s player gets', () => {
  it.each([
    { upload: 'uploads/portrait-hevc-rotated.mov', type: 'video/quicktime', upright: { width: 180, height: 320 } },
    { upload: 'uploads/chrome-vp9-opus.webm', type: 'video/webm', upright: { width: 320, height: 240 } },
  ])(
    '$upload → video/mp4, H.264 yuv420p + AAC, faststart, upright',
    async ({ upload, type, upright }) => {
      const playback = await playbackOf(upload, type);
      expect(playback.type).toBe('video/mp4');
      const made = await probeVideo(playback.file, { timeoutMs: 30_000 });
      expect(made.videoStream.codec_name).toBe('h264');
      expect(made.videoStream.pix_fmt).toBe('yuv420p');
      expect(made.audioStream?.codec_name).toBe('aac');
      expect({ width: made.width, height: made.height }).toEqual(upright);
      expect(rotationOf(made.videoStream)).toBe(0);
      const boxes = topLevelBoxes(playback.file);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    },
    60_000,
  );
});
