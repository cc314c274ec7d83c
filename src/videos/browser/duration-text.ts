/**
 * A length of video as people read it on a player: `0:07`, `2:00`, `1:02:03`. Shared by the server
 * (the limit on the record page, the reason a long video is refused) and the record page's countdown,
 * so both say the same thing. Types and pure code only: compiled for Node and the browser alike.
 */
export function durationText(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * Slack on the limit, in seconds: a recording stopped at the limit by the page can come out a little
 * longer in its container (the recorder's last timeslice, the audio track's tail).
 */
export const DURATION_LIMIT_SLACK_SECONDS = 1;

/**
 * The shortest video taken as a message, in seconds: a tap on Stop right after the countdown, or a
 * clip cut by mistake, would reach the recipient as a blink. Refused on the page and by the server.
 */
export const MIN_VIDEO_SECONDS = 1;
