import type { Context } from 'koa';
import { readBodyBytes } from './body-reads.ts';
import { refuseContentCoding } from './content-coding.ts';
import { HttpError } from './errors.ts';
import { shortened } from '../i18n/shortened.ts';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads a JSON object body. Routes call this explicitly (no global body parser) so that raw-byte
 * endpoints — video uploads, Shopify webhooks whose HMAC covers the exact bytes — stay untouched.
 */
export async function readJsonObject(
  ctx: Context,
  options: {
    /** Take the last of a repeated key instead of refusing the body: for a third party's event we cannot have corrected. */
    lastOfRepeatedKey?: boolean;
  } = {},
): Promise<Record<string, unknown>> {
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
  const text = decodeUtf8(bytes);
  const value = parsed(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  const problem = malformation(value, { strings: true });
  if (problem) throw new HttpError(400, 'invalid_json', problem);
  const repeated = options.lastOfRepeatedKey ? null : repeatedKey(text);
  if (repeated !== null)
    throw new HttpError(
      400,
      'invalid_json',
      `The request body has the key ${JSON.stringify(shortened(repeated, 64))} twice in one object; send each key once.`,
    );
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The first key that an object in `json` (text JSON.parse took) names twice, or null. JSON.parse keeps
 * the last value of a repeated key, so {"price":-5,"price":100} was stored as 100 while
 * {"price":100,"price":-5} was refused: what was stored hung on key order and hid a client's serializer
 * bug (fields probe; RFC 8259 §4: names SHOULD be unique). One pass over the text, strings skipped with
 * indexOf: a string followed by ":" is a key of the innermost open object. Keys are compared decoded
 * ("pr\u0069ce" is "price"). No npm package does this cheaply: those found are CLIs or full parsers.
 */
function repeatedKey(json: string): string | null {
  // One set of keys per open object; null for an open array.
  const open: Array<Set<string> | null> = [];
  for (let at = 0; at < json.length; at++) {
    const code = json.charCodeAt(at);
    if (code === OPEN_BRACE) open.push(new Set());
    else if (code === OPEN_BRACKET) open.push(null);
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) open.pop();
    else if (code === QUOTE) {
      const end = closingQuote(json, at);
      const keys = open.at(-1);
      if (keys && nextSignificant(json, end + 1) === COLON) {
        const literal = json.slice(at, end + 1);
        const key = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
        if (keys.has(key)) return key;
        keys.add(key);
      }
      at = end;
    }
  }
  return null;
}

/** Where the string opened at `opening` closes: the next quote not escaped by an odd run of backslashes. */
function closingQuote(json: string, opening: number): number {
  let quote = json.indexOf('"', opening + 1);
  for (;;) {
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = json.indexOf('"', quote + 1);
  }
}

/** The first character code from `from` on that is not JSON white space (NaN past the end). */
function nextSignificant(json: string, from: number): number {
  let at = from;
  for (;;) {
    const code = json.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return code;
    at++;
  }
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
