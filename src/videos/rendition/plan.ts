/**
 * The playback rendition (issue 27), pure: from what ffprobe saw in an upload, the ffmpeg arguments
 * that make the one file every recipient's browser plays — MP4, H.264 (High profile, yuv420p) and
 * AAC, `moov` before `mdat`, upright pixels, at most 30 frames a second and 1280 px on the long side,
 * with a bitrate cap. No I/O here: src/videos/rendition/transcode.ts runs it.
 */

/** What the rendition may be; the defaults are what docs/videos.md explains. */
export interface RenditionSettings {
  /** The long side's cap in pixels (the short side follows the aspect ratio). */
  maxLongSide: number;
  maxFps: number;
  /** The video's peak bitrate (kbit/s); with audio at 128 kbit/s, a 2-minute message stays under ~35 MB. */
  maxVideoKbps: number;
  audioKbps: number;
}

export const DEFAULT_RENDITION: RenditionSettings = {
  maxLongSide: 1280,
  maxFps: 30,
  maxVideoKbps: 2000,
  audioKbps: 128,
};

/**
 * The rendition's size limit for a video of at most `seconds`: its bitrate caps over that length,
 * with room for a rate control that overshoots for a moment. A rendition past it would be cut short
 * (ffmpeg's -fs), so the upload fails instead, with the reason.
 */
export function renditionMaxBytes(settings: RenditionSettings, seconds: number): number {
  const bytesPerSecond = ((settings.maxVideoKbps + settings.audioKbps) * 1000) / 8;
  return Math.ceil(bytesPerSecond * (seconds + 1) * 1.5) + 2 * 1024 * 1024;
}

/** The facts of an upload the plan needs (src/videos/rendition/probe.ts reads them). */
export interface ProbedVideo {
  /** Coded size, before rotation. */
  width: number;
  height: number;
  /** Display rotation in degrees (metadata a phone writes instead of turning the pixels). */
  rotation: number;
  /**
   * The pixels' own aspect ratio (width ÷ height of one pixel; ffprobe's `sample_aspect_ratio`) when
   * it is not 1: a 1440×1080 frame at 4:3 is shown 1920 wide. Absent or 1: square pixels.
   */
  pixelAspect?: number;
  /**
   * The stream indexes (ffprobe's `index`) to take: the video track, not a cover picture; the audio a
   * player would play, the default one when there are several. Absent: the first of each.
   */
  videoStreamIndex?: number;
  audioStreamIndex?: number | null;
  /** Frames per second, when the container says. */
  fps: number | null;
  hasAudio: boolean;
  /** The audio's sample rate (Hz), when there is audio and the container says. */
  audioSampleRate?: number | null;
  /**
   * High dynamic range (PQ or HLG: an iPhone's HDR and Dolby Vision clips): absent or false for SDR.
   * Cut to 8 bits as it is, it plays grey and washed out; it is tone-mapped to SDR BT.709 instead.
   */
  hdr?: boolean;
  /**
   * BT.2020 colours that are not HDR (some phones' 10-bit SDR): converted to BT.709, as the 8-bit
   * rendition is tagged and every player reads it; absent or false otherwise.
   */
  wideGamut?: boolean;
}

/**
 * HDR → SDR BT.709 (ffmpeg's zscale, from libzimg, and tonemap): to linear light with 100 nits as
 * SDR white, BT.2020 primaries to BT.709, then Möbius, which keeps colours within SDR's range as
 * they are and compresses only the highlights above it (Hable dimmed everything by a third, a plain
 * clip blows out highlights), and back to BT.709's transfer in TV range.
 */
const HDR_TO_SDR = [
  // PQ and HLG come in BT.2020: said outright, so a file that tags its transfer but not its primaries
  // or matrix is converted too, instead of zscale refusing it.
  'zscale=t=linear:npl=100:pin=bt2020:min=bt2020nc',
  'format=gbrpf32le',
  'zscale=p=bt709',
  'tonemap=tonemap=mobius:desat=0',
  'zscale=t=bt709:m=bt709:r=tv',
];
/** BT.2020 SDR → BT.709: the same transfer curve, the primaries and matrix converted (zscale). */
const WIDE_GAMUT_TO_BT709 = ['zscale=pin=bt2020:min=bt2020nc:tin=bt709:p=bt709:m=bt709:t=bt709:r=tv'];
const MAX_AUDIO_SAMPLE_RATE = 48_000;

/** What the tone-mapped rendition says it is, so players do not read it as HDR. */
const BT709_TAGS = ['-color_primaries', 'bt709', '-color_trc', 'bt709', '-colorspace', 'bt709'];

/**
 * The upright size of the rendition, as it is shown: rotation applied, non-square pixels made square,
 * the long side capped, both sides even (yuv420p needs it).
 */
export function renditionSize(video: ProbedVideo, settings: RenditionSettings): { width: number; height: number } {
  const shown = { width: video.width * squarePixelFactor(video), height: video.height };
  const quarterTurn = Math.abs(Math.round(video.rotation / 90)) % 2 === 1;
  const upright = quarterTurn ? { width: shown.height, height: shown.width } : shown;
  const scale = Math.min(1, settings.maxLongSide / Math.max(upright.width, upright.height));
  // Down to even, never up: the cap holds and no side is stretched.
  const even = (value: number) => Math.max(2, 2 * Math.floor((value * scale) / 2));
  return { width: even(upright.width), height: even(upright.height) };
}

function squarePixelFactor(video: ProbedVideo): number {
  const aspect = video.pixelAspect;
  return aspect !== undefined && Number.isFinite(aspect) && aspect > 0 ? aspect : 1;
}

/**
 * The picture filters up to the size: pixels made square first when they are not (the rest of the
 * chain, and every player, then sees the shape as shown), then each frame fitted inside the
 * rendition's size and centred on black. Fitted, not stretched: a browser recording whose frames
 * change shape mid-way (the phone turned while recording) keeps each part's own shape, and the
 * expressions are evaluated again when ffmpeg re-opens the chain for the new frame size.
 */
function sizeFilters(video: ProbedVideo, size: { width: number; height: number }): string[] {
  return [
    ...(squarePixelFactor(video) === 1 ? [] : ['scale=trunc(iw*sar/2)*2:ih:flags=bicubic', 'setsar=1']),
    `scale=${size.width}:${size.height}:flags=bicubic:force_original_aspect_ratio=decrease:force_divisible_by=2`,
    `pad=${size.width}:${size.height}:(ow-iw)/2:(oh-ih)/2`,
    'setsar=1',
  ];
}

/**
 * The ffmpeg command line (after `ffmpeg`) from `input` to `output`. ffmpeg turns the pixels by the
 * rotation metadata itself (autorotate, its default) before the filters, so the scale is to the
 * upright size and the output carries no rotation. `maxBytes` is ffmpeg's own output limit (`-fs`);
 * `maxSeconds` stops the encode at the length limit, so a file that lies about its length cannot
 * keep a worker busy for an hour.
 */
export function renditionArguments(options: {
  input: string;
  output: string;
  video: ProbedVideo;
  settings: RenditionSettings;
  maxBytes: number;
  maxSeconds: number;
}): string[] {
  const { video, settings } = options;
  const size = renditionSize(video, settings);
  const filters = [
    ...sizeFilters(video, size),
    // Only ever down: a 15 fps clip keeps its 15, a 60 fps one becomes 30.
    ...(video.fps === null || video.fps > settings.maxFps ? [`fps=${settings.maxFps}`] : []),
    // After the scale, on the smaller frames.
    ...(video.hdr ? HDR_TO_SDR : video.wideGamut ? WIDE_GAMUT_TO_BT709 : []),
    'format=yuv420p',
  ];
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-i',
    options.input,
    '-map',
    video.videoStreamIndex === undefined ? '0:v:0' : `0:${video.videoStreamIndex}`,
    ...(video.hasAudio ? ['-map', video.audioStreamIndex == null ? '0:a:0' : `0:${video.audioStreamIndex}`] : []),
    // Nothing of the phone's metadata (place, device) travels to the recipient.
    '-map_metadata',
    '-1',
    '-vf',
    filters.join(','),
    '-c:v',
    'libx264',
    '-profile:v',
    'high',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    ...(video.hdr || video.wideGamut ? BT709_TAGS : []),
    '-maxrate',
    `${settings.maxVideoKbps}k`,
    '-bufsize',
    `${settings.maxVideoKbps * 2}k`,
    ...(video.hasAudio ? ['-c:a', 'aac', '-b:a', `${settings.audioKbps}k`, '-ac', '2'] : ['-an']),
    // Windows' AAC decoder (Firefox and Edge play AAC through it) takes at most 48 kHz: a 96 kHz
    // recording is lowered to it; anything at or below stays as it is.
    ...(video.hasAudio && (video.audioSampleRate ?? 0) > MAX_AUDIO_SAMPLE_RATE
      ? ['-ar', String(MAX_AUDIO_SAMPLE_RATE)]
      : []),
    '-movflags',
    '+faststart',
    '-t',
    String(options.maxSeconds),
    '-fs',
    String(options.maxBytes),
    '-f',
    'mp4',
    options.output,
  ];
}
