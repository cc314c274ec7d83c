import type { UploadState } from '../browser/page-data.ts';
import type { VideoRow } from '../videos.ts';

/** What the record page is told of the upload it sent, while it waits. */
export function uploadState(video: Pick<VideoRow, 'status' | 'failure_reason' | 'duration_tenths'>): UploadState {
  if (video.status === 'processed')
    return { status: 'ready', duration_seconds: video.duration_tenths === null ? null : video.duration_tenths / 10 };
  if (video.status === 'failed')
    return { status: 'failed', reason: video.failure_reason ?? 'The video could not be prepared.' };
  return { status: 'processing' };
}
