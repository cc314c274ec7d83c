import type { UploadState } from './page-data.ts';

/** Asked this often while the video is prepared (a two-minute message takes about a minute). */
const POLL_MS = 3000;
/** After this the page stops asking: the video is still prepared, and the page already said it can be closed. */
const GIVE_UP_MS = 15 * 60 * 1000;

/**
 * How following a video's preparation ends: ready, failed with the reason, or `gone` — the server
 * no longer knows the upload (404 or 410: a newer upload from another page replaced it, or the
 * order was erased). Asking again would never change that answer.
 */
export type ProcessingEnd = Exclude<UploadState, { status: 'processing' }> | { status: 'gone' };

/**
 * Follows the sent video's preparation on the server until it is ready or failed, for the page to
 * say so; a closed page loses nothing (the server carries on). Network blips and server errors are
 * asked again; an answer that the upload is unknown is final.
 */
export function followProcessing(statusUrl: string, onSettled: (state: ProcessingEnd) => void): void {
  const started = Date.now();
  const ask = async (): Promise<void> => {
    if (Date.now() - started > GIVE_UP_MS) return;
    try {
      const response = await fetch(statusUrl, { headers: { Accept: 'application/json' } });
      if (response.status === 404 || response.status === 410) return onSettled({ status: 'gone' });
      if (response.ok) {
        const state = (await response.json()) as UploadState;
        if (state.status !== 'processing') return onSettled(state);
      }
    } catch {
      // Offline for a moment: ask again.
    }
    window.setTimeout(() => void ask(), POLL_MS);
  };
  window.setTimeout(() => void ask(), POLL_MS);
}
