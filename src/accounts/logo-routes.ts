import Router from '@koa/router';
import type { Context } from 'koa';
import type { Db } from '../db/database.ts';
import { readBodyBytes } from '../http/body-reads.ts';
import { HttpError } from '../http/errors.ts';
import { findAccountLogo, LOGO_FORMATS, LOGO_UPLOAD_MAX_BYTES } from './logo.ts';

/**
 * The body of a logo upload (`PUT /v1/account/logo`, `PUT /shopify/api/settings/logo`): the image's
 * bytes, sent as `image/*` (415 otherwise; what it is, is read from the bytes themselves), at most
 * LOGO_UPLOAD_MAX_BYTES (413).
 */
export async function readLogoBody(ctx: Context): Promise<Buffer> {
  if (!ctx.request.type.toLowerCase().startsWith('image/'))
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Send the logo's bytes with its image Content-Type (${LOGO_FORMATS.join(', ')}).`,
    );
  return readBodyBytes(ctx, LOGO_UPLOAD_MAX_BYTES, `A logo may be at most ${LOGO_UPLOAD_MAX_BYTES / 1024 / 1024} MB.`);
}

/**
 * `GET /brand/{account id}/{sha256}.png`: a store's uploaded logo, public (pages and e-mails load
 * it) and cached for ever, since a new logo has a new name. An old name answers 404.
 */
export function logoRoutes(db: Db): Router {
  const router = new Router();
  router.get('/brand/:accountId/:file', async (ctx) => {
    const sha256 = /^([0-9a-f]{64})\.png$/.exec(ctx.params.file ?? '')?.[1];
    const png = sha256 ? await findAccountLogo(db, ctx.params.accountId!, sha256) : undefined;
    if (!png) throw new HttpError(404, 'not_found', 'No such logo.');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'image/png';
    ctx.body = png;
  });
  return router;
}
