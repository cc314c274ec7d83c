import { byId, serverErrorMessage, statusLine } from './dom.ts';
import { DURATION_LIMIT_SLACK_SECONDS, MIN_VIDEO_SECONDS, durationText } from './duration-text.ts';
import { capturePosterFrame, sendPosterFrame } from './poster-frame.ts';
import { followProcessing } from './processing-status.ts';
import { sendResumably } from './resumable-send.ts';
import type { ScriptPhrases } from '../../i18n/catalogue.ts';

/** A script phrase in the page's language, its `{placeholders}` filled. */
export type Translate = (key: keyof ScriptPhrases, values?: Record<string, string | number>) => string;

/** What a page's recorder needs: where to send, the limits, and its own few words. */
export interface RecorderOptions {
  /** The ids of the recorder's elements start with this (`''` on the record page, `thanks-` on the watch page). */
  idPrefix: string;
  uploadUrl: string;
  maxBytes: number;
  maxSeconds: number;
  types: string[];
  /** The recorder's words in the page's language (the catalogue's `script_` phrases, filled). */
  t: Translate;
  /** Said once the upload (and its poster) arrived. */
  received: string;
  /** Said once the server prepared it, when the upload's answer names a `status_url` to follow. */
  ready: string;
  /**
   * Runs once the upload arrived, before its poster and the thank-you (the gift's transcript goes
   * here): given the URLs the upload's answer names, it may return a sentence to add to `received`.
   */
  afterUpload?: (answerUrl: (field: string) => string | null) => Promise<string | null>;
  /** Called once the upload and its poster arrived. */
  onReceived?: () => void;
}

/**
 * The one recorder of both pages: record with the camera (MediaRecorder) or pick a file, watch it
 * back, send it with a progress bar, and say clearly whether it arrived. The record page uses it for
 * the gift; the watch page for the recipient's thank-you reply.
 */
export function setUpRecorder(options: RecorderOptions): void {
  const { idPrefix, uploadUrl, maxBytes, maxSeconds, types, t } = options;
  const part = <T extends HTMLElement>(id: string, kind: new () => T): T => byId(`${idPrefix}${id}`, kind);
  const preview = part('preview', HTMLVideoElement);
  const playback = part('playback', HTMLVideoElement);
  const statusEl = part('status', HTMLParagraphElement);
  const progress = part('progress', HTMLProgressElement);
  const cameraBtn = part('camera', HTMLButtonElement);
  const recordBtn = part('record', HTMLButtonElement);
  const stopBtn = part('stop', HTMLButtonElement);
  const sendBtn = part('send', HTMLButtonElement);
  const fileInput = part('file', HTMLInputElement);
  const timer = part('timer', HTMLParagraphElement);
  const countdown = part('countdown', HTMLParagraphElement);
  const root = part('recorder', HTMLDivElement);
  const outcomeBox = part('outcome', HTMLDivElement);

  /**
   * The recorder's screen: one state at a time, each with one thing to do (the page's stylesheet
   * shows only what `data-state` names). `sent` replaces the form with its confirmation.
   */
  type State = 'before' | 'camera' | 'recording' | 'preview' | 'uploading' | 'processing' | 'sent';
  const show = (state: State) => {
    root.dataset.state = state;
  };

  /** The last seconds are counted down in red, so the end of a recording is no surprise. */
  const ENDING_SECONDS = 10;
  let timerInterval: number | undefined;

  let stream: MediaStream | null = null;
  let recorder: MediaRecorder | null = null;
  let chunks: Blob[] = [];
  let chosen: Blob | null = null;
  let playbackUrl: string | null = null;
  /** The chosen video's poster frame, drawn while the sender watches it (poster-frame.ts). */
  let poster: Promise<Blob | null> = Promise.resolve(null);

  const say = statusLine(statusEl);

  /** `video/webm;codecs=vp8,opus` → `video/webm`: the server takes the base type only. */
  const baseType = (type: string | undefined): string => (type ?? '').split(';')[0]!.trim().toLowerCase();

  function refuse(message: string): void {
    chosen = null;
    sendBtn.disabled = true;
    show(stream ? 'camera' : 'before');
    say(message, 'error');
  }

  function choose(blob: Blob): void {
    if (playbackUrl) URL.revokeObjectURL(playbackUrl);
    playbackUrl = null;
    if (!types.includes(baseType(blob.type))) return refuse(t('script_wrong_type'));
    if (blob.size === 0) return refuse(t('script_empty'));
    if (blob.size > maxBytes) return refuse(t('script_too_large', { megabytes: Math.floor(maxBytes / 1048576) }));
    chosen = blob;
    playbackUrl = URL.createObjectURL(blob);
    playback.src = playbackUrl;
    playback.hidden = false;
    poster = capturePosterFrame(playback);
    sendBtn.disabled = false;
    show('preview');
    say(t('script_watch_then_send'));
  }

  /**
   * A chosen file longer than the limit, or shorter than a message can be, is refused here, before an
   * upload the server would refuse after processing. Recordings stop at the limit, and one stopped too
   * soon is refused when it stops (startRecording).
   */
  function checkFileLength(): void {
    const seconds = playback.duration;
    // MediaRecorder WebM files report Infinity until played through; the server checks those.
    if (!chosen || !Number.isFinite(seconds)) return;
    if (seconds < MIN_VIDEO_SECONDS) return refuse(t('script_too_short'));
    if (seconds <= maxSeconds + DURATION_LIMIT_SLACK_SECONDS) return;
    refuse(t('script_too_long', { duration: durationText(seconds), limit: durationText(maxSeconds) }));
  }
  playback.addEventListener('loadedmetadata', checkFileLength);

  /** While recording: elapsed and remaining time, and a stop at the limit. */
  function startTimer(current: MediaRecorder): void {
    const startedAt = performance.now();
    const tick = () => {
      const elapsed = (performance.now() - startedAt) / 1000;
      const left = Math.max(0, maxSeconds - elapsed);
      timer.textContent = t('script_timer', {
        elapsed: durationText(elapsed),
        limit: durationText(maxSeconds),
        left: durationText(Math.ceil(left)),
      });
      timer.classList.toggle('ending', left <= ENDING_SECONDS);
      if (left <= 0 && current.state === 'recording') stopRecording();
    };
    timer.hidden = false;
    tick();
    timerInterval = window.setInterval(tick, 250);
  }

  function stopTimer(): void {
    window.clearInterval(timerInterval);
    timerInterval = undefined;
  }

  function stopRecording(): void {
    stopTimer();
    stopBtn.hidden = true;
    recorder?.stop();
  }

  /** The first container this browser can record: WebM on Chrome/Firefox, MP4 on Safari. */
  function pickMimeType(): string {
    const candidates = [
      'video/webm;codecs=vp9,opus',
      'video/webm;codecs=vp8,opus',
      'video/webm',
      'video/mp4;codecs=avc1,mp4a',
      'video/mp4',
    ];
    return candidates.find((type) => typeof MediaRecorder !== 'undefined' && MediaRecorder.isTypeSupported(type)) ?? '';
  }

  // Older browsers (and insecure origins) have no camera API: the file picker still works.
  if (!navigator.mediaDevices || typeof MediaRecorder === 'undefined') cameraBtn.hidden = true;

  /** Turns the camera on; never rejects (every failure is said on the page). */
  async function startCamera(): Promise<void> {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user' }, audio: true });
    } catch (error) {
      say(t(cameraFailure(error)), 'error');
      return;
    }
    preview.srcObject = stream;
    preview.hidden = false;
    playback.hidden = true;
    await preview.play().catch(() => {});
    cameraBtn.hidden = true;
    recordBtn.hidden = false;
    show('camera');
    say(t('script_camera_ready'));
    // The pressed button is gone: focus goes to the next thing to press, not back to the page's top
    // (gift pages probe: a second Enter did nothing).
    recordBtn.focus();
  }

  cameraBtn.addEventListener('click', () => void startCamera());

  /** Seconds counted down on the camera's picture before recording starts: time to smile. */
  const COUNTDOWN_SECONDS = 3;

  recordBtn.addEventListener('click', () => {
    if (!stream) return;
    recordBtn.hidden = true;
    sendBtn.disabled = true;
    show('recording');
    let left = COUNTDOWN_SECONDS;
    countdown.hidden = false;
    countdown.textContent = String(left);
    const step = window.setInterval(() => {
      left -= 1;
      if (left > 0) {
        countdown.textContent = String(left);
        return;
      }
      window.clearInterval(step);
      countdown.hidden = true;
      startRecording();
    }, 1000);
  });

  function startRecording(): void {
    if (!stream) return;
    chunks = [];
    const mimeType = pickMimeType();
    const current = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
    recorder = current;
    current.ondataavailable = (event) => {
      if (event.data.size > 0) chunks.push(event.data);
    };
    current.onstop = () => {
      stopTimer();
      timer.hidden = true;
      recordBtn.hidden = false;
      recordBtn.textContent = t('script_record_again');
      if ((performance.now() - startedAt) / 1000 < MIN_VIDEO_SECONDS) {
        refuse(t('script_too_short'));
        recordBtn.focus();
        return;
      }
      preview.hidden = true;
      choose(new Blob(chunks, { type: baseType(current.mimeType) || baseType(mimeType) || 'video/webm' }));
      // Stop is gone: the recording to watch comes next, then Record again and Send.
      if (playback.hidden) recordBtn.focus();
      else playback.focus();
    };
    // Timeslices: the data arrives as it is recorded, not all at once at the end.
    const startedAt = performance.now();
    current.start(1000);
    stopBtn.hidden = false;
    stopBtn.focus();
    startTimer(current);
    say(t('script_recording', { limit: durationText(maxSeconds) }));
  }

  stopBtn.addEventListener('click', stopRecording);

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) choose(file);
  });

  /** A URL the upload's answer names: where its poster frame (`poster_upload_url`), transcript or status is. */
  function answerUrl(responseText: string, field: string): string | null {
    try {
      const body: unknown = JSON.parse(responseText);
      const url =
        typeof body === 'object' && body !== null && field in body ? (body as Record<string, unknown>)[field] : null;
      // Our own path, never another origin's.
      return typeof url === 'string' && url.startsWith('/') && !url.startsWith('//') ? url : null;
    } catch {
      return null;
    }
  }

  sendBtn.addEventListener('click', () => void send());

  async function send(): Promise<void> {
    if (!chosen) return;
    sendBtn.disabled = true;
    show('uploading');
    progress.hidden = false;
    progress.value = 0;
    say(t('script_sending'));
    const outcome = await sendResumably(chosen, {
      endpoint: uploadUrl,
      type: baseType(chosen.type),
      onProgress: (percent) => {
        progress.value = percent;
        say(t('script_sending'));
      },
      onReconnecting: () => say(t('script_reconnecting')),
    });
    if (!outcome.ok) {
      if (outcome.reason === 'refused' && outcome.status === 429) {
        say(t('script_too_many_uploads'), 'error');
        sendBtn.disabled = false;
        show('preview');
        return;
      }
      const reason =
        outcome.reason === 'connection'
          ? null
          : (serverErrorMessage(outcome.body) ?? t('script_went_wrong', { status: outcome.status }));
      say(reason === null ? t('script_connection_failed') : t('script_not_sent', { reason }), 'error');
      sendBtn.disabled = false;
      show('preview');
      return;
    }
    progress.value = 100;
    stream?.getTracks().forEach((track) => track.stop());
    // What goes with the video (transcript, poster) goes before the thank-you, so a sender who
    // closes the page then loses nothing.
    const addendum = (await options.afterUpload?.((field) => answerUrl(outcome.answer, field))) ?? null;
    const posterUrl = answerUrl(outcome.answer, 'poster_upload_url');
    const frame = posterUrl ? await poster : null;
    if (posterUrl && frame) await sendPosterFrame(frame, posterUrl);
    say(addendum ? `${options.received} ${addendum}` : options.received, 'ok');
    // The confirmation replaces the form, in view and read out, wherever the sender had scrolled:
    // `processing` while the server prepares the video (when the page can follow it), then `sent`.
    const statusUrl = answerUrl(outcome.answer, 'status_url');
    show(statusUrl ? 'processing' : 'sent');
    outcomeBox.scrollIntoView({ block: 'center' });
    outcomeBox.focus({ preventScroll: true });
    options.onReceived?.();
    // The record page's answer names where the video's preparation can be followed.
    if (statusUrl)
      followProcessing(statusUrl, (state) => {
        if (state.status === 'ready') {
          show('sent');
          return say(addendum ? `${options.ready} ${addendum}` : options.ready, 'ok');
        }
        say(
          state.status === 'gone'
            ? t('script_processing_gone')
            : t('script_processing_failed', { reason: state.reason }),
          'error',
        );
        sendBtn.disabled = true;
        // Another go: the camera or a file, as at the start.
        show('before');
        cameraBtn.hidden = !navigator.mediaDevices || typeof MediaRecorder === 'undefined';
      });
  }
}

/**
 * What went wrong with the camera, in the visitor's words: the browser's error names
 * (`NotAllowedError`) were shown as they are, with nothing to do about them (gift pages probe).
 * https://w3c.github.io/mediacapture-main/#dom-mediadevices-getusermedia lists them.
 */
function cameraFailure(
  error: unknown,
): 'script_camera_denied' | 'script_camera_missing' | 'script_camera_busy' | 'script_camera_failed' {
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'script_camera_denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'script_camera_missing';
  if (name === 'NotReadableError' || name === 'AbortError') return 'script_camera_busy';
  return 'script_camera_failed';
}
