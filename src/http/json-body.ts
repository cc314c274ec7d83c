import type { Context } from 'koa';
import { readBodyText } from './body-reads.ts';
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
  const text = await readBodyText(
    ctx,
    JSON_BODY_LIMIT_BYTES,
    `JSON bodies are limited to ${JSON_BODY_LIMIT_BYTES} bytes.`,
  );
  const value = parseJsonText(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/**
 * A body read raw (a signature covers its bytes) parsed as JSON, or the 400 every route gives for a
 * body that is not JSON.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
}
