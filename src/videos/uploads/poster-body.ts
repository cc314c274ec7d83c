import type { Context } from 'koa';
import { readBodyBytes } from '../../http/body-reads.ts';
import { HttpError } from '../../http/errors.ts';
import { POSTER_MAX_BYTES } from '../service.ts';

/**
 * The body of a poster-frame upload (the gift's or the thank-you reply's): a small JPEG the page drew
 * from the video, refused as anything else (415) or larger than POSTER_MAX_BYTES (413).
 */
export async function readPosterBody(ctx: Context): Promise<Buffer> {
  if (ctx.request.type.toLowerCase() !== 'image/jpeg')
    throw new HttpError(415, 'unsupported_media_type', 'Send the poster as Content-Type image/jpeg.');
  return readBodyBytes(ctx, POSTER_MAX_BYTES, `A poster may be at most ${POSTER_MAX_BYTES / 1024} KB.`);
}
