import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.ts';
import { decideRange } from './range.ts';
import type { VideoStorage } from './storage.ts';
import { playbackFile, type VideoRow } from '../videos.ts';

/**
 * The video and poster of a watch link keep their URL when the sender records again, so a cache must
 * ask each time (a 304 when unchanged, by the ETag): `max-age=3600` showed the old video for an hour.
 */
const REVALIDATE = 'private, no-cache';

/** A conditional GET or HEAD whose ETag still matches (Koa's `fresh`): 304, no body. */
function notModified(ctx: Context): boolean {
  ctx.status = 200;
  if (!ctx.fresh) return false;
  ctx.status = 304;
  return true;
}

/**
 * Answers a GET or HEAD for one stored video: a redirect to object storage, or the bytes with Range
 * support from local disk. The watch page's player and the sender's thank-you page both use it.
 */
export async function serveVideo(ctx: Context, storage: VideoStorage, video: VideoRow): Promise<void> {
  const file = playbackFile(video);
  // Object storage (S3_BUCKET) serves the bytes and their Range requests itself, through a
  // short-lived presigned URL: video traffic never passes through Node, and a CDN can sit in front.
  // The redirect is not cached past the URL's life, and "viewed" stays the page's play beacon.
  const direct = await storage.directUrl(file.key);
  if (direct) {
    ctx.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    ctx.redirect(direct.href);
    return;
  }
  // The rendition has an entity of its own: a cached original's ranges must not be mixed into it.
  const etag = `"${video.id}${video.rendition_key ? '-playback' : ''}"`;
  ctx.set({
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'Cache-Control': REVALIDATE,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  });
  if (notModified(ctx)) return;
  const ifRange = ctx.get('If-Range');
  const decision =
    ifRange && ifRange !== etag ? { kind: 'full' as const } : decideRange(ctx.get('Range') || undefined, file.bytes);
  if (decision.kind === 'unsatisfiable') {
    throw new HttpError(416, 'range_not_satisfiable', `The video is ${file.bytes} bytes long.`, {
      'Content-Range': `bytes */${file.bytes}`,
    });
  }
  ctx.type = file.contentType;
  if (decision.kind === 'partial') {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${decision.range.start}-${decision.range.end}/${file.bytes}`);
  } else {
    ctx.status = 200;
  }
  const length = decision.kind === 'partial' ? decision.range.end - decision.range.start + 1 : file.bytes;
  if (ctx.method === 'HEAD') {
    ctx.length = length; // HEAD: headers only; no stream is opened
    return;
  }
  const stored = await storage.get(file.key, decision.kind === 'partial' ? decision.range : undefined);
  ctx.body = stored.stream;
  ctx.length = length;
}

/**
 * Answers a GET or HEAD for a stored poster frame (a small JPEG, served through Node from either
 * storage): the watch page's and the sender's thank-you page's.
 */
export async function servePoster(ctx: Context, storage: VideoStorage, posterKey: string): Promise<void> {
  ctx.set({
    // Each upload's poster has a key of its own: a new video's poster is another entity.
    ETag: `"${createHash('sha256').update(posterKey).digest('base64url').slice(0, 22)}"`,
    'Cache-Control': REVALIDATE,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  });
  if (notModified(ctx)) return;
  const stored = await storage.get(posterKey);
  ctx.type = 'image/jpeg';
  ctx.length = stored.size;
  ctx.body = stored.stream;
}
