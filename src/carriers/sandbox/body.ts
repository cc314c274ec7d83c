import type { Context } from 'koa';

const BODY_LIMIT_BYTES = 256 * 1024;

export class BodyError extends Error {
  override name = 'BodyError';
}

/** The raw request body as text (the sandbox has no global body parser; each route reads its own). */
export async function readText(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const piece of ctx.req) {
    const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(String(piece));
    size += buffer.length;
    if (size > BODY_LIMIT_BYTES) throw new BodyError(`body larger than ${BODY_LIMIT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON body, or BodyError when it is not JSON. */
export async function readJson(ctx: Context): Promise<unknown> {
  const text = await readText(ctx);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError('body is not valid JSON');
  }
}

/** application/x-www-form-urlencoded body as a plain object. */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  return Object.fromEntries(new URLSearchParams(await readText(ctx)));
}
