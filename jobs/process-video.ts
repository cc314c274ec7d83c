import { z } from 'zod';
import type { Logger } from '../src/logger.ts';
import type { VideoService } from '../src/videos/service.ts';
import { jobProcessor } from './run-job.ts';

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
