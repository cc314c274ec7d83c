import type { Context, Next } from 'koa';

/** A gift box, drawn small: every browser tab asks for /favicon.ico, and a 404 there is noise. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="4" y="13" width="24" height="16" rx="2" fill="#d94f3d"/><rect x="2" y="8" width="28" height="6" rx="2" fill="#e8735f"/>
<rect x="14" y="8" width="4" height="21" fill="#f6d365"/><path d="M16 8c-3-6-9-5-8-1 1 3 8 1 8 1zm0 0c3-6 9-5 8-1-1 3-8 1-8 1z" fill="#f6d365"/>
</svg>`;

export async function favicon(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== '/favicon.ico' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  ctx.type = 'image/svg+xml';
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = ICON;
}
