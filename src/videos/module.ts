import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderService } from '../orders/service.ts';
import { bullmqVideoQueue } from './processing-queue.ts';
import { DEFAULT_RENDITION } from './rendition/plan.ts';
import { VideoService, type VideoProcessingQueue } from './service.ts';
import { createVideoStorage } from './storage/create-storage.ts';
import type { VideoStorage } from './storage/storage.ts';

/**
 * The videos module, made by the composition root (src/app.ts): where the bytes live, the queue that
 * wakes processing, and the service over both.
 */
export interface VideosModule {
  service: VideoService;
  storage: VideoStorage;
  /** Where uploads are handed for processing (BullMQ on REDIS_URL unless replaced). */
  queue: VideoProcessingQueue;
}

export function createVideos(deps: {
  config: Config;
  db: Db;
  orders: OrderService;
  logger: Logger;
  now: () => Date;
  /** BullMQ's video-processing queue (src/queues/). */
  processingQueue: Parameters<typeof bullmqVideoQueue>[0];
  /** Replaces the BullMQ queue (tests that run processing by hand, in their own order). */
  queue?: VideoProcessingQueue | undefined;
  /** A thank-you reply finished processing: the thanks module decides what follows. */
  onReplyProcessed: NonNullable<ConstructorParameters<typeof VideoService>[0]['onReplyProcessed']>;
}): VideosModule {
  const { config } = deps;
  const queue = deps.queue ?? bullmqVideoQueue(deps.processingQueue);
  const storage = createVideoStorage(config.videos);
  const service = new VideoService({
    db: deps.db,
    orders: deps.orders,
    storage,
    queue,
    logger: deps.logger,
    maxSeconds: config.videos.maxSeconds,
    thanksMaxSeconds: config.videos.thanks.maxSeconds,
    rendition: {
      settings: { ...DEFAULT_RENDITION, maxLongSide: config.videos.rendition.maxLongSide },
      timeoutMs: config.videos.rendition.timeoutMs,
    },
    onReplyProcessed: deps.onReplyProcessed,
    now: deps.now,
  });
  return { service, storage, queue };
}
