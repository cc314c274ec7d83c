import { Upload, type DetailedError } from 'tus-js-client';

/** How one send ended: the server's answer (JSON text), or why it did not arrive. */
export type SendOutcome =
  | { ok: true; answer: string }
  | { ok: false; reason: 'refused'; status: number; body: string }
  | { ok: false; reason: 'connection' };

export interface SendOptions {
  /** The tus endpoint: `/record/{uuid}/uploads` or `/watch/{uuid}/thanks/uploads`. */
  endpoint: string;
  /** The video's base type (`video/webm`), the only metadata sent. */
  type: string;
  onProgress: (percent: number) => void;
  /** The connection dropped and the upload will continue from where it stopped. */
  onReconnecting: () => void;
}

/** Sent in chunks, each acknowledged: a cut connection loses at most the chunk in flight. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/**
 * Waits before each retry: a phone walking out of coverage gets about five minutes to come back.
 * Each retry first asks the server how much arrived (HEAD), then sends the rest.
 */
const RETRY_DELAYS_MS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000, 60_000, 60_000, 60_000, 60_000];

/**
 * Sends a video with the tus resumable upload protocol (src/videos/uploads/resumable-uploads.ts): a
 * connection cut at 60% continues from 60%, in this page and, for a chosen file, after a reload
 * (tus-js-client remembers the upload's URL in localStorage until it succeeds). Never rejects.
 */
export function sendResumably(video: Blob, options: SendOptions): Promise<SendOutcome> {
  return new Promise((resolve) => {
    const upload: Upload = new Upload(video, {
      endpoint: options.endpoint,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata: { filetype: options.type },
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => options.onProgress(total > 0 ? Math.round((sent / total) * 100) : 0),
      onShouldRetry(error) {
        const retry = worthRetrying(error);
        if (retry) options.onReconnecting();
        return retry;
      },
      onSuccess({ lastResponse }) {
        const body = lastResponse.getBody();
        if (isAnswer(body)) return resolve({ ok: true, answer: body });
        // The last byte had arrived before the cut (the resumed upload only asked how much): the
        // server hands the upload over now, or says it already did.
        void complete(upload.url).then(resolve);
      },
      onError(error) {
        const response = (error as DetailedError).originalResponse;
        const status = response?.getStatus() ?? 0;
        resolve(
          status === 0
            ? { ok: false, reason: 'connection' }
            : { ok: false, reason: 'refused', status, body: response!.getBody() },
        );
      },
    });
    void upload
      .findPreviousUploads()
      .then((previous) => {
        if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
      })
      .catch(() => {})
      .finally(() => upload.start());
  });
}

/**
 * No answer (the network), a server error, or tus's own conflict and lock (the client re-reads the
 * offset): try again. Our refusals (a sent order, too large, over budget) are final.
 */
function worthRetrying(error: Error): boolean {
  const response = (error as DetailedError).originalResponse;
  const status = response?.getStatus() ?? 0;
  if (status === 0 || status >= 500 || status === 423) return true;
  return status === 409 && errorType(response!.getBody()) === 'upload_protocol_error';
}

async function complete(uploadUrl: string | null): Promise<SendOutcome> {
  if (!uploadUrl) return { ok: false, reason: 'connection' };
  try {
    const response = await fetch(`${uploadUrl}/complete`, { method: 'POST' });
    const body = await response.text();
    return response.ok ? { ok: true, answer: body } : { ok: false, reason: 'refused', status: response.status, body };
  } catch {
    return { ok: false, reason: 'connection' };
  }
}

function isAnswer(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && (parsed as { status?: unknown }).status === 'received';
  } catch {
    return false;
  }
}

function errorType(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { type?: unknown } };
    return typeof parsed.error?.type === 'string' ? parsed.error.type : undefined;
  } catch {
    return undefined;
  }
}
