/**
 * The transcript the sender typed (issue 14), sent to the upload's transcript URL right after the
 * upload, before the page says thank you: the watch page shows it as captions.
 */

/** The thank-you waits for the transcript at most this long. */
const TRANSCRIPT_SEND_TIMEOUT_MS = 5000;

/** Whether the transcript was saved; never rejects (the video arrived either way). */
export async function sendTranscript(transcript: string, transcriptUrl: string): Promise<boolean> {
  try {
    const response = await fetch(transcriptUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ transcript }),
      signal: AbortSignal.timeout(TRANSCRIPT_SEND_TIMEOUT_MS),
    });
    return response.ok;
  } catch {
    return false;
  }
}
