import fs from 'node:fs';
import path from 'node:path';
import { DURATION_LIMIT_SLACK_SECONDS, MIN_VIDEO_SECONDS, durationText } from '../browser/duration-text.ts';
import { renditionArguments, type RenditionSettings } from './plan.ts';
import { probeVideo, UnplayableVideoError } from './probe.ts';
import { runTool, ToolFailedError } from '../../process/run-tool.ts';

export interface Rendition {
  /** The finished MP4; only ever a whole file (written under another name, renamed when checked). */
  file: string;
  /** A JPEG frame of the rendition, for the poster. */
  posterFile: string;
  durationSeconds: number;
  width: number;
  height: number;
  bytes: number;
}

export interface TranscodeLimits {
  settings: RenditionSettings;
  /** The length limit (VIDEO_MAX_SECONDS or THANKS_MAX_SECONDS), and what the reason calls the video. */
  maxSeconds: number;
  kind: 'video messages' | 'thank-you videos';
  /** The rendition's size limit (ffmpeg's -fs). */
  maxBytes: number;
  /** Wall clock for the whole encode; probes get 30 s each. */
  timeoutMs: number;
  signal?: AbortSignal;
}

const PROBE_TIMEOUT_MS = 30_000;
/** A rendition this close to its -fs limit stopped there (the moov after the cut makes up the rest). */
const NEAR_SIZE_CAP = 0.9;

/**
 * Makes the playback rendition of `input` in `workDir` (which the caller owns and removes). A file
 * that is not a playable video, too long, too large even compressed, or that ffmpeg fails on or
 * takes too long with, is an UnplayableVideoError whose message is the reason the sender reads.
 * Anything else (a stop, ffmpeg missing) is thrown as it is, for the job to retry.
 */
export async function makeRendition(input: string, workDir: string, limits: TranscodeLimits): Promise<Rendition> {
  const probeOptions = { timeoutMs: PROBE_TIMEOUT_MS, ...(limits.signal ? { signal: limits.signal } : {}) };
  const source = await probeVideo(input, probeOptions);
  const longest = limits.maxSeconds + DURATION_LIMIT_SLACK_SECONDS;
  // Refused before any encoding when the file states the length of the streams taken (an unused,
  // longer track does not count); otherwise the encode stops just past the limit (-t) and the
  // rendition's own length decides.
  if (source.durationSeconds !== null && source.durationSeconds > longest)
    throw tooLong(source.durationSeconds, limits);

  const partial = path.join(workDir, 'rendition.partial.mp4');
  const file = path.join(workDir, 'rendition.mp4');
  const posterFile = path.join(workDir, 'poster.jpg');
  try {
    await runTool(
      'ffmpeg',
      renditionArguments({
        input,
        output: partial,
        video: source,
        settings: limits.settings,
        maxBytes: limits.maxBytes,
        maxSeconds: longest,
      }),
      { timeoutMs: limits.timeoutMs, ...(limits.signal ? { signal: limits.signal } : {}) },
    );
  } catch (error) {
    if (limits.signal?.aborted || !(error instanceof ToolFailedError)) throw error;
    throw new UnplayableVideoError(
      error.timedOut
        ? `Preparing the video took longer than ${Math.round(limits.timeoutMs / 1000)} s; please try a shorter or smaller file.`
        : 'The video could not be converted for playback; the file may be damaged.',
    );
  }

  const made = await probeVideo(partial, probeOptions);
  if (made.durationSeconds === null)
    throw new UnplayableVideoError('The video has no length; it may be empty or cut off.');
  // A rendition shorter than its source either hit the size cap (ffmpeg stops writing at -fs and still
  // ends well) or found no more to read: a file cut off in transfer, whose container still states
  // the whole length. The sender is told which.
  if (source.durationSeconds !== null && made.durationSeconds < Math.min(source.durationSeconds, longest) - 1) {
    const { size } = await fs.promises.stat(partial);
    throw new UnplayableVideoError(
      size >= limits.maxBytes * NEAR_SIZE_CAP
        ? 'The video is too large to send, even compressed; please send a shorter one.'
        : `The video seems cut off: it should last ${durationText(source.durationSeconds)}, but only ${durationText(made.durationSeconds)} of it could be read. Please send the whole file again.`,
    );
  }
  // Stopped at -t: the source was longer than the limit, though its container did not say.
  if (made.durationSeconds > longest - 0.05 && source.durationSeconds === null) throw longerThanLimit(limits);
  // A photo (or a photo with a voice memo) encodes as one frame: nothing moves, and players differ
  // on a one-frame track. It is refused with a reason, not stored.
  if (Number(made.videoStream.nb_frames) <= 1) throw new UnplayableVideoError(STILL_PICTURE);
  if (made.durationSeconds < MIN_VIDEO_SECONDS) throw new UnplayableVideoError(TOO_SHORT);
  await fs.promises.rename(partial, file);

  await writePoster(file, posterFile, made.durationSeconds, probeOptions);
  return {
    file,
    posterFile,
    durationSeconds: made.durationSeconds,
    width: made.width,
    height: made.height,
    bytes: (await fs.promises.stat(file)).size,
  };
}

const STILL_PICTURE = 'The file is a still picture, not a video; please choose a video.';
const TOO_SHORT = 'The video is under a second long, too short for a message; please send a longer one.';

/**
 * A JPEG frame for the poster: one second in (or a third of a short video), else the first frame when
 * the seek finds none (a video whose frames all come early). A poster that cannot be made after the
 * video was is a reason for the sender, not a failure to retry forever.
 */
async function writePoster(
  video: string,
  posterFile: string,
  durationSeconds: number,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  for (const seekSeconds of [Math.min(1, durationSeconds / 3), 0]) {
    try {
      await runTool(
        'ffmpeg',
        [
          '-hide_banner',
          '-nostdin',
          '-loglevel',
          'error',
          '-y',
          '-ss',
          String(seekSeconds),
          '-i',
          video,
          '-frames:v',
          '1',
          '-q:v',
          '3',
          posterFile,
        ],
        options,
      );
    } catch (error) {
      // A stop, or a poster that ran out of time on a busy machine, is retried with the job; only
      // ffmpeg failing on the file is the video's fault.
      if (options.signal?.aborted || !(error instanceof ToolFailedError) || error.timedOut) throw error;
      continue;
    }
    if (fs.existsSync(posterFile)) return;
  }
  throw new UnplayableVideoError('The video could not be converted for playback; the file may be damaged.');
}

function tooLong(seconds: number, limits: TranscodeLimits): UnplayableVideoError {
  return new UnplayableVideoError(
    `The video is ${durationText(seconds)} long; ${limits.kind} can be up to ${durationText(limits.maxSeconds)}.`,
  );
}

/**
 * A video whose length is known only to pass the limit (the encode stopped just past it): said
 * against the limit itself, not the limit plus its slack — "more than 2:01" had senders trim a
 * second and fail again (video probe).
 */
function longerThanLimit(limits: TranscodeLimits): UnplayableVideoError {
  const limit = durationText(limits.maxSeconds);
  return new UnplayableVideoError(`The video is longer than ${limit}; ${limits.kind} can be up to ${limit}.`);
}
