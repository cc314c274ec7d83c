import type { Context } from 'koa';
import { readBodyBytes } from './body-reads.ts';
import { refuseContentCoding } from './content-coding.ts';
import { HttpError } from './errors.ts';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads a JSON object body. Routes call this explicitly (no global body parser) so that raw-byte
 * endpoints — video uploads, Shopify webhooks whose HMAC covers the exact bytes — stay untouched.
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  // No body at all (neither Content-Length nor Transfer-Encoding): `is` cannot tell a type then, and
  // the 415 below blamed a Content-Type the client did send (API probe finding).
  if (ctx.is('application/json') === null)
    throw new HttpError(400, 'invalid_request', 'The request has no body; send the JSON object in it.');
  if (!ctx.is('application/json')) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  // A body in a content coding (gzip, br, …) is not read: no route needs one, and inflating is where a
  // small body gets large. A gzip body used to answer "not valid JSON", and a br one was read as if plain.
  refuseContentCoding(ctx, 'Send the JSON uncompressed');
  const bytes = await readBodyBytes(
    ctx,
    JSON_BODY_LIMIT_BYTES,
    `JSON bodies are limited to ${JSON_BODY_LIMIT_BYTES} bytes.`,
  );
  // JSON travels as UTF-8 (RFC 8259 §8.1). A body in another charset, or bytes that are not UTF-8, used
  // to be decoded with U+FFFD in place of what did not fit: a Latin-1 "Zoë" was stored as "Zo\uFFFD"
  // and sent on to the recipient. They are refused instead, as are escaped lone surrogates, which the
  // database would store the same broken way. A charset other than UTF-8 matters only when the body
  // has bytes beyond ASCII, which that charset reads otherwise: then it is refused rather than
  // guessed (ASCII reads the same in all of them).
  const charset = ctx.request.charset;
  if (charset && !UTF8_NAMES.has(charset.toLowerCase()) && !isAscii(bytes))
    throw new HttpError(415, 'unsupported_media_type', `Send JSON as UTF-8; the body says charset=${charset}.`);
  const value = parsed(decodeUtf8(bytes));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  const problem = malformation(value, { strings: true });
  if (problem) throw new HttpError(400, 'invalid_json', problem);
  return value as Record<string, unknown>;
}

const UTF8_NAMES = new Set(['utf-8', 'utf8']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isAscii(bytes: Buffer): boolean {
  return bytes.every((byte) => byte < 0x80);
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid UTF-8.');
  }
}

/**
 * No body a route takes nests deeper than a few levels; this many is far beyond any, and well short of
 * where code that walks a value recursively runs out of stack (API probe: a 10 KB body nested 5,000
 * deep answered 500, and wrote an error line, on every JSON route, one of them without credentials).
 */
export const JSON_MAX_DEPTH = 64;

/**
 * What is wrong with a parsed JSON value, or null: nested deeper than JSON_MAX_DEPTH, or a string (keys
 * included) that is not well-formed Unicode. Walked with a stack of its own, not recursion, for the
 * same reason.
 */
function malformation(root: unknown, options: { strings: boolean }): string | null {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (options.strings && !value.isWellFormed())
        return 'The request body has a string with a lone surrogate (\\uD800–\\uDFFF unpaired).';
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_MAX_DEPTH) return `The request body nests objects or arrays more than ${JSON_MAX_DEPTH} deep.`;
    if (Array.isArray(value)) {
      for (const item of value) pending.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      pending.push({ value: key, depth: depth + 1 });
      pending.push({ value: item, depth: depth + 1 });
    }
  }
  return null;
}

/**
 * A body read raw (a signature covers its bytes) parsed as JSON, or the 400 every route gives for a
 * body that is not JSON.
 */
export function parseJsonText(text: string): unknown {
  const value = parsed(text);
  // Signed bodies (webhooks, carrier pushes) keep their strings as sent; only their depth is bounded.
  const problem = malformation(value, { strings: false });
  if (problem) throw new HttpError(400, 'invalid_json', problem);
  return value;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
}
