import { Queue } from 'bullmq';
import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { VideoProcessingQueue, VideoService } from '../src/videos/service.ts';
import { addRerunnableJob } from '../src/redis/add-job.ts';
import { jobProcessor } from './run-job.ts';

/** One queue for video processing (docs/design.md §2 "one BullMQ queue per concern"). */
export const VIDEO_PROCESSING_QUEUE = 'video-processing';

export const processVideoPayload = z.object({ videoId: z.string().regex(/^vid_[0-9a-f]{24}$/) });

/**
 * Reads an upload's duration and records the order (or the failure on its timeline). The use case
 * decides everything; a corrupt file is a *result* (status failed, a timeline event), not a job
 * error, so only storage/database trouble is retried.
 */
export function processVideoProcessor(videos: VideoService, logger: Logger) {
  return jobProcessor('process-video', processVideoPayload, logger, async ({ videoId }) => {
    const outcome = await videos.process(videoId);
    logger.info({ videoId, outcome }, 'video processed');
    return { outcome };
  });
}

/**
 * The web side's `VideoProcessingQueue` on BullMQ. The job id is the video id, so a re-enqueue by
 * the reconciler while the first job is waiting or running is a no-op.
 */
export function bullmqVideoQueue(queue: Queue): VideoProcessingQueue {
  return {
    async enqueue(videoId) {
      await addRerunnableJob(queue, 'process', { videoId }, `video-${videoId}`);
    },
  };
}
