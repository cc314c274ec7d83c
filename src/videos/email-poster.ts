import { onAccent } from '../design/tokens.ts';
import { ffmpegToBytes } from '../process/run-tool.ts';
import type { VideoStorage } from './storage/storage.ts';

/**
 * The e-mail's poster (issue 29): the video's poster frame with a play button drawn into the image
 * itself, in the store's accent. E-mail clients ignore CSS overlays, so a poster without one looks
 * like a photo, not a video. Made by ffmpeg the first time a mail client asks, then kept beside the
 * poster (and deleted with it: it is a frame of the video). A mail opened after the store changed
 * its colour shows the colour it was first drawn in.
 */

/** Twice the e-mail's 552 px content width: sharp on a retina phone. */
const WIDTH = 1104;
/** The button's diameter box, in pixels of that width (about a fifth of it). */
const BUTTON = 240;
/** Making one takes well under a second; this is the most it may take. */
const MAKE_TIMEOUT_MS = 20_000;

/** The key the e-mail poster of `posterKey` is kept under. */
export function emailPosterKey(posterKey: string): string {
  return `${posterKey}-email`;
}

/**
 * The poster scaled to WIDTH (a portrait frame cropped to 4:5, so the mail is not a screen tall) with
 * a round button in `accent` and its triangle in the colour that reads on it, drawn at the centre.
 */
export async function makeEmailPoster(poster: Buffer, accent: string): Promise<Buffer> {
  const disc = rgbOf(accent);
  const mark = rgbOf(onAccent(accent));
  // The triangle: its left edge at x = 96, its tip at (182, 120); inside when right of the edge and
  // between the two slanted sides (slope 52/90). The disc: radius 116 around the centre.
  const inTriangle = 'gte(X,96)*gte(Y-68,(X-96)*0.5778)*gte(172-Y,(X-96)*0.5778)';
  const channel = (index: number) => `'if(${inTriangle},${mark[index]},${disc[index]})'`;
  const button = `color=c=black@0:s=${BUTTON}x${BUTTON},format=rgba,geq=r=${channel(0)}:g=${channel(1)}:b=${channel(2)}:a='if(lt(hypot(X-120,Y-120),116),245,0)'`;
  const background = `[0:v]scale=${WIDTH}:-2,crop=iw:'min(ih,trunc(iw*5/8)*2)',format=rgba`;
  return ffmpegToBytes({
    input: { bytes: poster, format: 'jpeg_pipe' },
    args: [
      '-filter_complex',
      `${background}[bg];${button}[btn];[bg][btn]overlay=(W-w)/2:(H-h)/2,format=yuvj420p`,
      '-frames:v',
      '1',
      '-q:v',
      '3',
      '-f',
      'image2',
    ],
    output: 'email-poster.jpg',
    timeoutMs: MAKE_TIMEOUT_MS,
  });
}

/** `#rrggbb` as its three channels, 0–255. */
function rgbOf(hex: string): [number, number, number] {
  return [1, 3, 5].map((offset) => parseInt(hex.slice(offset, offset + 2), 16)) as [number, number, number];
}

/** Draws the e-mail poster of `posterKey` and stores it under `emailPosterKey(posterKey)`. */
export async function storeEmailPoster(storage: VideoStorage, posterKey: string, accent: string): Promise<void> {
  const poster = await storage.get(posterKey);
  const chunks: Buffer[] = [];
  for await (const chunk of poster.stream) chunks.push(chunk as Buffer);
  await storage.put(emailPosterKey(posterKey), await makeEmailPoster(Buffer.concat(chunks), accent), 'image/jpeg');
}
