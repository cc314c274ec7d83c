import { z } from 'zod';
import type { ProbedVideo } from './plan.ts';
import { runTool, ToolFailedError } from '../../process/run-tool.ts';

const NOT_A_VIDEO = 'The file is not a video we can read (MP4, QuickTime, WebM and the like).';

/** An upload (or rendition) no player could play: the reason is the sender's to read. */
export class UnplayableVideoError extends Error {
  override name = 'UnplayableVideoError';
}

const stream = z.object({
  codec_type: z.string().optional(),
  codec_name: z.string().optional(),
  profile: z.string().optional(),
  pix_fmt: z.string().optional(),
  color_transfer: z.string().optional(),
  sample_rate: z.string().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  avg_frame_rate: z.string().optional(),
  r_frame_rate: z.string().optional(),
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
   * Null when the container does not say: a browser's MediaRecorder streams its WebM and never goes
   * back to write one. The rendition, made from every frame, always has one.
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
  const video = parsed.data.streams.find((s) => s.codec_type === 'video' && s.width && s.height);
  if (!video) throw new UnplayableVideoError('The file has no video track.');
  const audio = parsed.data.streams.find((s) => s.codec_type === 'audio') ?? null;
  const duration = Number(parsed.data.format?.duration ?? video.duration);
  return {
    width: video.width!,
    height: video.height!,
    rotation: rotationOf(video),
    fps: frameRate(video.avg_frame_rate) ?? frameRate(video.r_frame_rate),
    hasAudio: audio !== null,
    audioSampleRate: audio?.sample_rate ? Number(audio.sample_rate) || null : null,
    hdr: HDR_TRANSFERS.has(video.color_transfer ?? ''),
    durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : null,
    formatName: parsed.data.format?.format_name ?? '',
    videoStream: video,
    audioStream: audio,
  };
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
