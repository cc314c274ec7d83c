import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../errors.ts';
import { ToolFailedError, ffmpegToBytes } from '../process/run-tool.ts';
import { writeLogoUrl } from './settings.ts';

/**
 * The store's logo, uploaded by the merchant (issue 28): what the record, watch and thank-you pages
 * and the e-mails show beside the store's name. Doorstep re-encodes every upload (ffmpeg) into a PNG
 * of at most LOGO_MAX_WIDTH × LOGO_MAX_HEIGHT without metadata, so what reaches a recipient is an
 * image we made, at a size an e-mail can carry, whatever the merchant sent.
 */

/** A logo file as a merchant has one: a print-size PNG fits. */
export const LOGO_UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/** Wide enough for a retina header at 300 CSS px; a logo is shown small. */
export const LOGO_MAX_WIDTH = 600;
export const LOGO_MAX_HEIGHT = 200;
/** Re-encoding a 5 MB image takes well under a second; this is the most it may take. */
const ENCODE_TIMEOUT_MS = 20_000;

/** What a merchant's logo may be, told by its first bytes (never by the name or a header alone). */
const FORMATS = [
  {
    name: 'PNG',
    demuxer: 'png_pipe',
    matches: (b: Buffer) => b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')),
  },
  { name: 'JPEG', demuxer: 'jpeg_pipe', matches: (b: Buffer) => b.subarray(0, 3).equals(Buffer.from('ffd8ff', 'hex')) },
  {
    name: 'WebP',
    demuxer: 'webp_pipe',
    matches: (b: Buffer) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
] as const;

export const LOGO_FORMATS = FORMATS.map((format) => format.name);

export interface StoredLogo {
  url: string;
  width: number;
  height: number;
}

/** Where a logo is served (src/accounts/logo-routes.ts): named by its hash, so cached for ever. */
export function logoPath(accountId: string, sha256: string): string {
  return `/brand/${encodeURIComponent(accountId)}/${sha256}.png`;
}

/**
 * The upload as a PNG Doorstep made: PNG, JPEG or WebP in (the first frame of an animation), scaled
 * down to fit the logo box, alpha kept. Anything else, or an image ffmpeg cannot decode, is a 422 in
 * words.
 */
export async function encodeLogo(upload: Buffer): Promise<{ png: Buffer; width: number; height: number }> {
  const format = FORMATS.find((candidate) => candidate.matches(upload));
  if (!format)
    throw new ValidationError(`The logo must be a ${LOGO_FORMATS.join(', ')} image.`, {
      logo: `must be a ${LOGO_FORMATS.join(', ')} image`,
    });
  const png = await ffmpegToBytes({
    // The decoder the first bytes named, and no other: ffmpeg does not guess from the content.
    input: { bytes: upload, format: format.demuxer },
    args: [
      '-frames:v',
      '1',
      '-vf',
      `scale=w='min(${LOGO_MAX_WIDTH},iw)':h='min(${LOGO_MAX_HEIGHT},ih)':force_original_aspect_ratio=decrease`,
      '-map_metadata',
      '-1',
      '-pix_fmt',
      'rgba',
      '-c:v',
      'png',
      '-f',
      'image2',
    ],
    output: 'logo.png',
    timeoutMs: ENCODE_TIMEOUT_MS,
  }).catch((error: unknown) => {
    if (error instanceof ToolFailedError && !error.timedOut)
      throw new ValidationError(`The logo is not a readable ${format.name} image.`, {
        logo: `is not a readable ${format.name} image`,
      });
    throw error;
  });
  // IHDR: width and height, big-endian, at bytes 16 and 20 of every PNG.
  return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * Stores the account's new logo and makes it the one its pages and messages show (the account's
 * `logo_url`, replacing a URL the merchant typed before).
 */
export async function saveAccountLogo(
  db: Db,
  accountId: string,
  upload: Buffer,
  publicUrl: string,
  now: Date,
): Promise<StoredLogo> {
  const { png, width, height } = await encodeLogo(upload);
  const sha256 = createHash('sha256').update(png).digest('hex');
  const url = `${publicUrl}${logoPath(accountId, sha256)}`;
  await db.transaction().execute(async (trx) => {
    const row = { sha256, png, width, height, updated_at: now };
    await trx
      .insertInto('account_logos')
      .values({ account_id: accountId, ...row })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
      .execute();
    await writeLogoUrl(trx, accountId, url, now);
  });
  return { url, width, height };
}

/** Removes the uploaded logo; the store shows its name alone (unless the merchant sets a URL). */
export async function removeAccountLogo(db: Db, accountId: string, publicUrl: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('account_logos')
      .where('account_id', '=', accountId)
      .returning('sha256')
      .executeTakeFirst();
    const settings = await trx
      .selectFrom('account_settings')
      .select('logo_url')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    // Only the upload's own URL goes: a logo URL the merchant typed since stays theirs.
    if (removed && settings?.logo_url === `${publicUrl}${logoPath(accountId, removed.sha256)}`)
      await writeLogoUrl(trx, accountId, null, now);
  });
}

/** The logo's bytes, when `sha256` names the account's current one. */
export async function findAccountLogo(db: Db, accountId: string, sha256: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('account_logos')
    .select('png')
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return row ? Buffer.from(row.png) : undefined;
}
