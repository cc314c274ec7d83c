import { byId, readPageData, serverErrorMessage, statusLine } from './dom.ts';
import { setUpRecipientForm } from './recipient-form.ts';
import type { RecordPageData } from './page-data.ts';

/**
 * The record page: record with the camera (MediaRecorder) or pick a file, watch it back, send it
 * with a progress bar, and say clearly whether it arrived.
 */
const { uploadUrl, maxBytes, types, recipientUrl } = readPageData<RecordPageData>();
if (recipientUrl) setUpRecipientForm(recipientUrl);
const preview = byId('preview', HTMLVideoElement);
const playback = byId('playback', HTMLVideoElement);
const statusEl = byId('status', HTMLParagraphElement);
const progress = byId('progress', HTMLProgressElement);
const cameraBtn = byId('camera', HTMLButtonElement);
const recordBtn = byId('record', HTMLButtonElement);
const stopBtn = byId('stop', HTMLButtonElement);
const sendBtn = byId('send', HTMLButtonElement);
const fileInput = byId('file', HTMLInputElement);

let stream: MediaStream | null = null;
let recorder: MediaRecorder | null = null;
let chunks: Blob[] = [];
let chosen: Blob | null = null;
let playbackUrl: string | null = null;

const say = statusLine(statusEl);

/** `video/webm;codecs=vp8,opus` → `video/webm`: the server takes the base type only. */
const baseType = (type: string | undefined): string => (type ?? '').split(';')[0]!.trim().toLowerCase();

function refuse(message: string): void {
  chosen = null;
  sendBtn.disabled = true;
  say(message, 'error');
}

function choose(blob: Blob): void {
  if (playbackUrl) URL.revokeObjectURL(playbackUrl);
  if (!types.includes(baseType(blob.type))) return refuse('Please choose an MP4, WebM or QuickTime (.mov) video.');
  if (blob.size === 0) return refuse('That video is empty. Please try again.');
  if (blob.size > maxBytes)
    return refuse(
      `That video is too large (the limit is ${Math.floor(maxBytes / 1048576)} MB). Please record a shorter one.`,
    );
  chosen = blob;
  playbackUrl = URL.createObjectURL(blob);
  playback.src = playbackUrl;
  playback.hidden = false;
  sendBtn.disabled = false;
  say('Watch your video, then press “Send video”.');
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
    say(
      `We could not use your camera (${error instanceof Error ? error.name : 'unknown error'}). You can choose a video file instead.`,
      'error',
    );
    return;
  }
  preview.srcObject = stream;
  preview.hidden = false;
  playback.hidden = true;
  await preview.play().catch(() => {});
  cameraBtn.hidden = true;
  recordBtn.hidden = false;
  say('Camera ready. Press “Start recording” when you are.');
}

cameraBtn.addEventListener('click', () => void startCamera());

recordBtn.addEventListener('click', () => {
  if (!stream) return;
  chunks = [];
  const mimeType = pickMimeType();
  const current = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
  recorder = current;
  current.ondataavailable = (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  };
  current.onstop = () => {
    preview.hidden = true;
    choose(new Blob(chunks, { type: baseType(current.mimeType) || baseType(mimeType) || 'video/webm' }));
    recordBtn.hidden = false;
    recordBtn.textContent = 'Record again';
  };
  // Timeslices: the data arrives as it is recorded, not all at once at the end.
  current.start(1000);
  recordBtn.hidden = true;
  stopBtn.hidden = false;
  stopBtn.focus();
  sendBtn.disabled = true;
  say('Recording…');
});

stopBtn.addEventListener('click', () => {
  stopBtn.hidden = true;
  recorder?.stop();
});

fileInput.addEventListener('change', () => {
  const file = fileInput.files?.[0];
  if (file) choose(file);
});

sendBtn.addEventListener('click', () => {
  if (!chosen) return;
  sendBtn.disabled = true;
  progress.hidden = false;
  progress.value = 0;
  say('Sending your video…');
  // XMLHttpRequest, not fetch: fetch has no upload progress.
  const xhr = new XMLHttpRequest();
  xhr.open('PUT', uploadUrl);
  xhr.setRequestHeader('Content-Type', baseType(chosen.type));
  xhr.upload.onprogress = (event) => {
    if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
  };
  xhr.onload = () => {
    if (xhr.status >= 200 && xhr.status < 300) {
      progress.value = 100;
      say('Thank you! Your video was received. It will be delivered with the gift.', 'ok');
      stream?.getTracks().forEach((track) => track.stop());
      return;
    }
    say(
      `Your video was not sent: ${serverErrorMessage(xhr.responseText) ?? `Something went wrong (${xhr.status}).`}`,
      'error',
    );
    sendBtn.disabled = false;
  };
  xhr.onerror = () => {
    say('Your video was not sent: the connection failed. Please try again.', 'error');
    sendBtn.disabled = false;
  };
  xhr.send(chosen);
});
