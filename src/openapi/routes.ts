import { pageHeaders } from '../http/page-headers.ts';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { Context } from 'koa';
import { scriptFileAsset, sendAsset, stylesheetAsset, type BrowserAsset } from '../http/browser-assets.ts';
import { html } from '../videos/html.ts';
import { openApiDocument } from './document.ts';

/** Where the document is served; the reference page loads it from here. */
export const OPENAPI_PATH = '/v1/openapi.json';

interface ReferenceAssets {
  script: BrowserAsset;
  stylesheet: BrowserAsset;
}

let built: ReferenceAssets | undefined;

/** Swagger UI from its npm package, read once per process and served from our origin (no CDN, pinned by SRI). */
function referenceAssets(): ReferenceAssets {
  const resolve = createRequire(import.meta.url).resolve;
  built ??= {
    script: scriptFileAsset(resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'swagger-ui-bundle'),
    stylesheet: stylesheetAsset(resolve('swagger-ui-dist/swagger-ui.css'), 'swagger-ui'),
  };
  return built;
}

/**
 * `GET /v1/openapi.json` and the reference page `GET /docs`. Both are public, and mounted before the
 * /v1 Basic auth: the document holds no data, and tools (code generators, Swagger UI itself) fetch it
 * without credentials. Every other /v1 path still needs them.
 */
export function apiReferenceRoutes(publicUrl: string): Router {
  // Built once: it depends only on the code and PUBLIC_URL.
  const document = JSON.stringify(openApiDocument(publicUrl));
  const assets = referenceAssets();
  const router = new Router();

  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = document;
  });

  router.get('/docs', (ctx) => sendReferencePage(ctx, assets, publicUrl));
  // Exact URLs (content-hashed), ahead of the pages' own /assets/:file route.
  for (const asset of Object.values(assets)) router.get(asset.url, (ctx) => sendAsset(ctx, asset));
  return router;
}

function sendReferencePage(ctx: Context, assets: ReferenceAssets, publicUrl: string): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  // The policy of our other pages: scripts by nonce only, nothing from another origin. "Try it out"
  // calls the server the document names (PUBLIC_URL).
  ctx.set(pageHeaders(nonce, { connect: [new URL(publicUrl).origin] }));
  // The script is constant text: nothing is interpolated into it (OPENAPI_PATH written out).
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Doorstep API reference</title>
<link rel="stylesheet" href="${assets.stylesheet.url}" integrity="${assets.stylesheet.integrity}" nonce="${nonce}">
</head>
<body>
<div id="reference"></div>
<script src="${assets.script.url}" integrity="${assets.script.integrity}" nonce="${nonce}"></script>
<script nonce="${nonce}">
window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null });
</script>
</body>
</html>`.value;
}
