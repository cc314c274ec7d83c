import { z } from 'zod';
import type { ProbedVideo } from './plan.ts';
import { runTool, ToolFailedError } from '../../process/run-tool.ts';

const NOT_A_VIDEO = 'The file is not a video we can read (MP4, QuickTime, WebM and the like).';

/** An upload (or rendition) no player could play: the reason is the sender's to read. */
export class UnplayableVideoError extends Error {
  override name = 'UnplayableVideoError';
}

const stream = z.object({
  index: z.number().int().optional(),
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  profile: z.string().optional(),
  pix_fmt: z.string().optional(),
  color_transfer: z.string().optional(),
  color_primaries: z.string().optional(),
  sample_rate: z.string().optional(),
  sample_aspect_ratio: z.string().optional(),
  disposition: z.record(z.string(), z.number()).optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  avg_frame_rate: z.string().optional(),
  r_frame_rate: z.string().optional(),
  start_time: z.string().optional(),
  duration: z.string().optional(),
  /** Frames in the stream, where the container counts them (MP4 does: the rendition always has it). */
  nb_frames: z.string().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  side_data_list: z.array(z.object({ rotation: z.number().optional() }).loose()).optional(),
});
const probeOutput = z.object({
  streams: z.array(stream).default([]),
  format: z.object({ duration: z.string().optional(), format_name: z.string().optional() }).optional(),
});
export type ProbeStream = z.infer<typeof stream>;

export interface Probe extends ProbedVideo {
  /**
   * The message's length: how long the streams taken (below) last, not the container's length, which
   * is its longest track's, an unused commentary track's included. Null when the file does not say:
   * a browser's MediaRecorder streams its WebM and never goes back to write one. The rendition, made
   * from every frame, always has one.
   */
  durationSeconds: number | null;
  formatName: string;
  videoStream: ProbeStream;
  audioStream: ProbeStream | null;
}

/**
 * ffprobe's reading of a file: its first video stream (size, rotation, frame rate), whether it has
 * audio, and its duration. A file ffprobe cannot read, or without a video stream or a duration, is
 * an UnplayableVideoError with a reason a person understands.
 */
export async function probeVideo(file: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<Probe> {
  let stdout: string;
  try {
    ({ stdout } = await runTool(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
      { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
    ));
  } catch (error) {
    if (error instanceof ToolFailedError && error.exitCode !== null) throw new UnplayableVideoError(NOT_A_VIDEO);
    throw error;
  }
  const parsed = probeOutput.safeParse(JSON.parse(stdout || '{}'));
  if (!parsed.success) throw new UnplayableVideoError(NOT_A_VIDEO);
  const streams = parsed.data.streams;
  // A cover picture (an MP4's or MKV's `attached_pic`) is a video stream too, and may come first.
  const video = firstDefault(
    streams.filter((s) => s.codec_type === 'video' && s.width && s.height && !s.disposition?.['attached_pic']),
  );
  if (!video) throw new UnplayableVideoError('The file has no video track.');
  const audio = firstDefault(streams.filter((s) => s.codec_type === 'audio'));
  const duration = messageSeconds([video, audio], parsed.data.format?.duration ?? video.duration);
  return {
    width: video.width!,
    height: video.height!,
    rotation: rotationOf(video),
    ...pixelAspectOf(video),
    ...(video.index === undefined ? {} : { videoStreamIndex: video.index }),
    audioStreamIndex: audio?.index ?? null,
    fps: frameRate(video.avg_frame_rate) ?? frameRate(video.r_frame_rate),
    hasAudio: audio !== null,
    audioSampleRate: audio?.sample_rate ? Number(audio.sample_rate) || null : null,
    hdr: HDR_TRANSFERS.has(video.color_transfer ?? ''),
    wideGamut: !HDR_TRANSFERS.has(video.color_transfer ?? '') && video.color_primaries === 'bt2020',
    durationSeconds: duration,
    formatName: parsed.data.format?.format_name ?? '',
    videoStream: video,
    audioStream: audio,
  };
}

/**
 * The track a player picks among several: the one marked default, else the first. (A phone's second
 * audio track may be a silent or commentary one; the first is not always the one that plays.)
 */
function firstDefault(streams: ProbeStream[]): ProbeStream | null {
  return streams.find((s) => s.disposition?.['default'] === 1) ?? streams[0] ?? null;
}

/**
 * From the first to the last moment of the streams taken: a phone's second audio track, 8 s long
 * beside a 3 s message, is not played and not encoded, so it neither makes the message too long
 * nor makes the 3 s rendition look cut off. When a stream taken states no length of its own (WebM and
 * Matroska keep none per stream), the container's length stands, as the best there is.
 */
function messageSeconds(taken: (ProbeStream | null)[], fileDuration: string | undefined): number | null {
  const streams = taken.filter((s) => s !== null);
  const spans = streams.map((s) => ({ start: Number(s.start_time ?? 0), duration: Number(s.duration) }));
  const seconds = spans.every((span) => span.duration > 0 && Number.isFinite(span.start))
    ? Math.max(...spans.map((span) => span.start + span.duration)) - Math.min(...spans.map((span) => span.start))
    : Number(fileDuration);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** `sample_aspect_ratio` "4:3" → 4/3; square, unknown ("0:1", "N/A") or absent → nothing. */
function pixelAspectOf(video: ProbeStream): { pixelAspect?: number } {
  const [numerator, denominator] = (video.sample_aspect_ratio ?? '').split(':').map(Number);
  if (!numerator || !denominator || numerator === denominator) return {};
  return { pixelAspect: numerator / denominator };
}

/** PQ (HDR10, Dolby Vision 8.1) and HLG (an iPhone's HDR, Dolby Vision 8.4). */
const HDR_TRANSFERS = new Set(['smpte2084', 'arib-std-b67']);

/** The display rotation: the display matrix's (newer files) or the `rotate` tag's (older muxers). */
export function rotationOf(video: ProbeStream): number {
  const matrix = video.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation;
  if (matrix !== undefined) return matrix;
  const tag = Number(video.tags?.['rotate']);
  return Number.isFinite(tag) ? tag : 0;
}

/** "30000/1001" → 29.97; "0/0" (unknown) → null. */
function frameRate(text: string | undefined): number | null {
  const [numerator, denominator] = (text ?? '').split('/').map(Number);
  if (!numerator || !denominator) return null;
  return numerator / denominator;
}
