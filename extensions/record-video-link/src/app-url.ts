/**
 * Where the Doorstep server is, fixed when Shopify CLI builds the extension. The CLI's esbuild
 * replaces `process.env.<NAME>` with the value of each variable of its environment and of the
 * app's `.env`, and sets `APP_URL` itself to the tunnel during `shopify app dev`
 * (Shopify/cli: services/build/extension.ts, services/extensions/bundle.ts). So:
 *   shopify app dev                                  → the dev tunnel, nothing to set
 *   APP_URL=https://doorstep.example.com shopify app deploy   (or APP_URL in the app's .env)
 * Built without it, the extension asks no server and shows nothing.
 */
declare const process: { readonly env: { readonly APP_URL?: string } };

export function configuredAppUrl(): string | undefined {
  try {
    // Replaced by a string literal at build time; without a value, `process` does not exist in the
    // extension's web worker and this throws.
    return process.env.APP_URL || undefined;
  } catch {
    return undefined;
  }
}
