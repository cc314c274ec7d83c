import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { RunningWorkers } from '../../jobs/start-workers.ts';
import type { VideoService, VideoProcessingQueue } from '../../src/videos/service.ts';
import type { VideoStorage } from '../../src/videos/storage/storage.ts';
import type { TestClock } from '../support/clock.ts';
import { forFile } from '../support/for-file.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';
import { startTestApp, type TestAccount, type TestApp, type TestResponse } from '../support/test-app.ts';
import { startTestWorkers } from '../support/workers.ts';

export interface VideoTestApp extends TestApp {
  videos: VideoService;
  storage: VideoStorage;
  /** Video ids handed to the queue, in order ('manual' mode). */
  enqueued: string[];
}

/**
 * The real app (startTestApp) for video tests. `queue: 'bullmq'` runs the real workers, so uploads
 * are processed by the real job on the run's Redis; `queue: 'manual'` only records what was
 * enqueued so a test can run processing itself, in the order it wants.
 */
export async function startVideoTestApp(options: {
  queue: 'bullmq' | 'manual';
  maxBytes?: number;
  clock?: TestClock;
  env?: Record<string, string>;
}): Promise<VideoTestApp> {
  const enqueued: string[] = [];
  const manualQueue: VideoProcessingQueue = { enqueue: async (id) => void enqueued.push(id) };
  const app = await startTestApp({
    ...(options.queue === 'manual' ? { videoQueue: manualQueue } : {}),
    ...(options.clock ? { now: options.clock.now } : {}),
    env: { ...(options.maxBytes ? { VIDEO_MAX_BYTES: String(options.maxBytes) } : {}), ...options.env },
  });
  const workers: RunningWorkers | null = options.queue === 'bullmq' ? await startTestWorkers(app.services) : null;
  return {
    ...app,
    videos: app.services.videos,
    storage: app.services.videoStorage,
    enqueued,
    async close() {
      await workers?.close();
      await app.close();
    },
  };
}

/** The file's video app and one store account: started before its tests, closed after them; `use` receives them. */
export function videoTestAppForFile(
  options: Parameters<typeof startVideoTestApp>[0],
  use: (started: { app: VideoTestApp; store: TestAccount }) => void,
): void {
  forFile(
    async () => {
      const app = await startVideoTestApp(options);
      return { app, store: await app.createAccount() };
    },
    use,
    ({ app }) => app.close(),
  );
}

export const fixture = (name: string): Buffer => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name));
export const fixturePath = (name: string): string => path.join(import.meta.dirname, 'fixtures', name);

/** The record page's upload of the recorded WebM fixture in one request, checked accepted (201): its answer. */
export async function uploadFromRecordPage(app: TestApp, uuid: string): Promise<TestResponse> {
  const response = await sendInOneRequest(
    app,
    `/record/${uuid}/uploads`,
    fixture('recorded-vp8-opus.webm'),
    'video/webm',
  );
  expect(response.status).toBe(201);
  return response;
}

/** The record page's answer to a finished upload: the video's id and where its poster, transcript and status go. */
export const receivedAnswer = (uuid: string, videoId: string) => ({
  status: 'received',
  video_id: videoId,
  poster_upload_url: `/record/${uuid}/videos/${videoId}/poster`,
  transcript_url: `/record/${uuid}/videos/${videoId}/transcript`,
  status_url: `/record/${uuid}/videos/${videoId}`,
});

/** The app's settings to keep its videos in `bucket` on this S3-compatible server (test/support/fake-s3.ts). */
export const s3VideoEnv = (
  s3: { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } },
  bucket: string,
): Record<string, string> => ({
  S3_BUCKET: bucket,
  S3_ENDPOINT: s3.endpoint,
  S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
  S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
});
