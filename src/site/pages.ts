import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { pageHeaders } from '../http/page-headers.ts';
import { html, type SafeHtml } from '../videos/html.ts';

/** What the public site pages need to know about the service that runs them. */
export interface SitePagesConfig {
  /** SUPPORT_EMAIL: where merchants, senders and recipients write; absent → the pages say to use the app listing. */
  supportEmail: string | undefined;
  /** VIDEO_ORIGINAL_RETENTION_DAYS, stated on the privacy page as it is configured. */
  originalRetentionDays: number;
}

/**
 * `/privacy` and `/support`: the pages an App Store listing links to (issue 28). Plain, static,
 * readable on a phone; what they say of data is what the code does (docs/app-store-listing.md).
 */
export function sitePageRoutes(config: SitePagesConfig): Router {
  const router = new Router();
  router.get('/privacy', (ctx) => sendPage(ctx, 'Privacy policy', privacyBody(config)));
  router.get('/support', (ctx) => sendPage(ctx, 'Support', supportBody(config)));
  return router;
}

function contact(config: SitePagesConfig): SafeHtml {
  return config.supportEmail
    ? html`<a href="mailto:${config.supportEmail}">${config.supportEmail}</a>`
    : html`the support contact on Doorstep’s Shopify App Store listing`;
}

function privacyBody(config: SitePagesConfig): SafeHtml {
  const originals =
    config.originalRetentionDays > 0
      ? html`The video as it was uploaded is deleted ${config.originalRetentionDays} days after it was sent; the
          version prepared for playback is kept until the order is erased.`
      : html`The video is kept until the order is erased.`;
  return html`<p>Doorstep sends a recorded video gift message to the person a gift is for, when the package
      is delivered. This page says what data it handles for that, why, and for how long.</p>
    <h2>What we receive</h2>
    <ul>
      <li><strong>From the store’s orders</strong> (Shopify, with the store’s permission): the order’s number and
        the video message’s price; the buyer’s name, e-mail address and phone number (the sender); the gift
        recipient’s name, e-mail address or mobile number as the buyer entered them, else the name and phone
        of the shipping address.</li>
      <li><strong>From shipping</strong>: the carrier and tracking number of the package, and the carrier’s
        delivery status.</li>
      <li><strong>From the sender</strong>: the video they record or upload, and optional captions they type.</li>
      <li><strong>From the recipient</strong>: an optional thank-you video or note.</li>
    </ul>
    <h2>Why</h2>
    <ul>
      <li>to send the video to the recipient by e-mail or SMS when the package arrives, and tell the sender;</li>
      <li>to show the store its video messages, and bill the store for the ones sent.</li>
    </ul>
    <p>We do not sell data, show advertising, or use it for anything else. Videos are reachable only through
      the unguessable links sent to the sender and the recipient.</p>
    <h2>Who else handles it</h2>
    <p>The e-mail and SMS providers that deliver the messages, the storage that holds the videos, and the
      carriers we ask for a package’s status (the tracking number only).</p>
    <h2>How long</h2>
    <p>${originals} When a store asks Shopify to erase a customer or uninstalls Doorstep, Shopify tells us
      and we erase that customer’s, or the store’s, data: orders, videos, replies and messages.</p>
    <h2>Your rights</h2>
    <p>To see, correct or erase your data, ask the store you bought from (it can do so in Shopify), or write
      to ${contact(config)}.</p>`;
}

function supportBody(config: SitePagesConfig): SafeHtml {
  return html`<p>Write to ${contact(config)}; we answer within one business day.</p>
    <h2>For stores</h2>
    <ul>
      <li><strong>Setting up</strong>: open Doorstep in your Shopify admin; its Home page lists the steps (the
        video block on the product page, the video message product, the plan) and lets you send a test gift to
        yourself.</li>
      <li><strong>A video was not sent</strong>: its order page in Doorstep says why (no video yet, no
        recipient, the package not yet delivered) and what happens next. A failed send can be sent again from
        there.</li>
      <li><strong>Billing</strong>: you pay per video message sent, within the plan you approved in Shopify.</li>
    </ul>
    <h2>For senders and recipients</h2>
    <ul>
      <li><strong>The recording page does not work</strong>: allow the camera, or choose a video file instead. An
        upload cut off by the network continues where it stopped when you press Send again.</li>
      <li><strong>The video did not arrive</strong>: it is sent when the package is delivered; check the spam
        folder, or ask the store to send it again.</li>
    </ul>`;
}

function sendPage(ctx: Context, title: string, body: SafeHtml): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.set(pageHeaders(nonce));
  // Public and the same for everyone: cacheable, unlike the capability pages.
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.type = 'html';
  ctx.body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Doorstep</title>
        <style nonce="${nonce}">
          body { font: 16px/1.6 system-ui, sans-serif; max-width: 42rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
          h1 { font-size: 1.8rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
          a { color: #0b57d0; } nav a { margin-right: 1rem; }
        </style>
      </head>
      <body>
        <nav><a href="/">Doorstep</a><a href="/privacy">Privacy</a><a href="/support">Support</a></nav>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.value;
}
