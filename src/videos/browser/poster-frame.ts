/**
 * The poster frame (issue 14): a frame of the video the sender just sent, drawn on a canvas and sent
 * as a JPEG to the upload's poster URL. The watch page and the recipient's e-mail show it. Best
 * effort: a browser that cannot draw the frame (or a network that drops the request) leaves the
 * video without a poster, which the pages and e-mails handle.
 */

/** Wide enough for an e-mail's full width on a retina phone, small enough to stay ~100 KB. */
const MAX_WIDTH = 960;
const QUALITY = 0.85;
/** The thank-you waits for the poster at most this long. */
const POSTER_SEND_TIMEOUT_MS = 5000;
/** How long drawing waits for a decoded frame to be shown before it draws what there is. */
const PRESENTED_FRAME_WAIT_MS = 1000;

/**
 * Draws the poster frame of the video in `video` (its source just set): a JPEG, or null when this
 * browser cannot. Done while the sender watches the preview, so sending the poster after the upload is
 * one small request, finished before the page says thank you.
 */
export async function capturePosterFrame(video: HTMLVideoElement): Promise<Blob | null> {
  try {
    await frameReady(video);
    const scale = Math.min(1, MAX_WIDTH / video.videoWidth);
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    const context = canvas.getContext('2d');
    if (!context || canvas.width === 0 || canvas.height === 0) return null;
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', QUALITY));
  } catch {
    return null;
  }
}

/** Sends a captured poster to the upload's poster URL; never rejects (no poster is not an error). */
export async function sendPosterFrame(poster: Blob, posterUrl: string): Promise<void> {
  try {
    await fetch(posterUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'image/jpeg' },
      body: poster,
      signal: AbortSignal.timeout(POSTER_SEND_TIMEOUT_MS),
    });
  } catch {
    // No poster: the watch page and the e-mail show a play button instead.
  }
}

/**
 * A decoded frame a little way in (the very first is often dark while a camera adjusts); a video
 * whose length the browser does not know yet (MediaRecorder WebM) stays where it is. `loadeddata`
 * and `seeked` can come before the frame reaches the compositor, and a canvas then draws it blank
 * (seen in headless Chromium: an all-black poster), so we also wait for the frame to be presented.
 */
async function frameReady(video: HTMLVideoElement): Promise<void> {
  const firstFrame = presentedFrame(video);
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await once(video, 'loadeddata');
  const target = Number.isFinite(video.duration) ? Math.min(0.5, video.duration / 2) : null;
  if (target !== null && Math.abs(video.currentTime - target) > 0.05) {
    const seeked = once(video, 'seeked');
    const seekedFrame = presentedFrame(video);
    video.currentTime = target;
    await seeked;
    await seekedFrame;
  } else {
    await firstFrame;
  }
}

/** The next frame the video presents, or a second's wait where the browser cannot say (no rVFC). */
function presentedFrame(video: HTMLVideoElement): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, PRESENTED_FRAME_WAIT_MS);
    if (typeof video.requestVideoFrameCallback !== 'function') return;
    video.requestVideoFrameCallback(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function once(target: HTMLElement, event: string, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event}`)), timeoutMs);
    target.addEventListener(
      event,
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
