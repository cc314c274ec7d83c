import { refuseContentCoding } from '../../http/content-coding.ts';
import { Transform, type TransformCallback } from 'node:stream';
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.ts';
import { VIDEO_CONTENT_TYPES } from '../service.ts';

/**
 * The HTTP edge of an upload: the declared content type (415), the size limit (413, from
 * Content-Length up front, else while streaming) and the request body as a stream, never
 * buffered whole (a video may be hundreds of megabytes).
 */
export function videoUploadBody(ctx: Context, maxBytes: number): { contentType: string; body: Transform } {
  const contentType = ctx.request.type.toLowerCase(); // media type without parameters (codecs=…)
  if (!(VIDEO_CONTENT_TYPES as readonly string[]).includes(contentType)) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Send the video's raw bytes with Content-Type ${VIDEO_CONTENT_TYPES.join(', ')}.`,
    );
  }
  refuseContentCoding(ctx, "Send the video's bytes as they are");
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  let seen = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) return callback(tooLarge(maxBytes));
      callback(null, chunk);
    },
  });
  // The error reaches the upload through the storage pipeline (a destroyed stream reports it to
  // whoever reads it later); without a listener here, Readable.pipe would rethrow it as uncaught
  // when it happens before the storage has started reading (e.g. while creating a directory).
  limiter.on('error', () => {});
  ctx.req.on('error', (error) => limiter.destroy(error));
  ctx.req.on('aborted', () =>
    limiter.destroy(new HttpError(400, 'invalid_request', 'The request body was not completely received.')),
  );
  ctx.req.pipe(limiter);
  return { contentType, body: limiter };
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(
    413,
    'payload_too_large',
    `Videos are limited to ${maxBytes} bytes (${Math.floor(maxBytes / (1024 * 1024))} MB).`,
  );
}

/** A stream failure that is the client's doing (it hung up) is a 400, not a 500. */
export function clientStreamError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'ECONNABORTED') {
    return new HttpError(400, 'invalid_request', 'The request body was not completely received.');
  }
  return error;
}
