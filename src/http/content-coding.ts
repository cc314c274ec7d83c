import type { Context } from 'koa';
import { HttpError } from './errors.ts';

/** The IANA registry's content codings other than identity (RFC 9110 §8.4.1): compressions, and aes128gcm. */
const CONTENT_CODINGS = new Set([
  'gzip',
  'x-gzip',
  'deflate',
  'br',
  'compress',
  'x-compress',
  'zstd',
  'dcb',
  'dcz',
  'aes128gcm',
  'exi',
  'pack200-gzip',
]);

/**
 * Refuses (415) a request body in a content coding: no route reads one. A JSON body in gzip answered
 * "not valid JSON"; a gzipped video was stored compressed and failed processing later, out of the
 * client's sight (API probe). Only registered codings are refused: a sender that misuses the header
 * (a charset named there) is read as before.
 */
export function refuseContentCoding(ctx: Context, advice: string): void {
  const coded = ctx
    .get('Content-Encoding')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .find((coding) => CONTENT_CODINGS.has(coding));
  if (coded)
    throw new HttpError(415, 'unsupported_media_type', `${advice}; Content-Encoding ${coded} is not accepted.`);
}
