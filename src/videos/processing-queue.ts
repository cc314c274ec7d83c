import type { Queue } from 'bullmq';
import { addRerunnableJob, jobIds } from '../queues/queues.ts';
import type { VideoProcessingQueue } from './service.ts';

/**
 * `VideoProcessingQueue` on BullMQ. The job id is the video id, so a re-enqueue by the reconciler
 * while the first job is waiting or running is a no-op.
 */
export function bullmqVideoQueue(queue: Queue): VideoProcessingQueue {
  return {
    async enqueue(videoId) {
      await addRerunnableJob(queue, 'process', { videoId }, jobIds.video(videoId));
    },
  };
}
