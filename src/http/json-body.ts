import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { HttpError } from './errors.ts';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads a JSON object body. Routes call this explicitly (no global body parser) so that raw-byte
 * endpoints — video uploads, Shopify webhooks whose HMAC covers the exact bytes — stay untouched.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  if (!ctx.is('application/json')) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, {
      limit: JSON_BODY_LIMIT_BYTES,
      encoding: 'utf8',
      length: ctx.get('Content-Length') || undefined,
    });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      throw new HttpError(413, 'payload_too_large', `JSON bodies are limited to ${JSON_BODY_LIMIT_BYTES} bytes.`);
    if (type === 'request.aborted')
      throw new HttpError(400, 'invalid_request', 'The request body was not completely received.');
    throw new HttpError(400, 'invalid_request', 'The request body could not be read.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
