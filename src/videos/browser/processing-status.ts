import type { UploadState } from './page-data.ts';

/** Asked this often while the video is prepared (a two-minute message takes about a minute). */
const POLL_MS = 3000;
/** After this the page stops asking: the video is still prepared, and the page already said it can be closed. */
const GIVE_UP_MS = 15 * 60 * 1000;

/**
 * Follows the sent video's preparation on the server until it is ready or failed, for the page to
 * say so; a closed page loses nothing (the server carries on). Network blips are asked again.
 */
export function followProcessing(
  statusUrl: string,
  onSettled: (state: Exclude<UploadState, { status: 'processing' }>) => void,
): void {
  const started = Date.now();
  const ask = async (): Promise<void> => {
    if (Date.now() - started > GIVE_UP_MS) return;
    try {
      const response = await fetch(statusUrl, { headers: { Accept: 'application/json' } });
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
