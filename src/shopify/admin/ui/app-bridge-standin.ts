/**
 * A stand-in for Shopify's App Bridge (https://cdn.shopify.com/shopifycloud/app-bridge.js) for
 * loading the embedded admin outside the Shopify admin: the real script only works inside the
 * admin's frame and redirects away otherwise. It implements the subset the page uses, on
 * `window.shopify`:
 * - `idToken()`: a REAL session token, HS256-signed with the configured secret, so the server's
 *   verification is the one production runs;
 * - `toast.show()`: a visible message, also kept in `window.__appBridgeStandin.toasts` for tests;
 * - `resourcePicker()`: answers with the products it was configured with;
 * - `<ui-nav-menu>`: an inert element (the admin draws the menu, so the frame shows nothing);
 * - `config.apiKey` (from `<meta name="shopify-api-key">`) and `config.shop` (from `?shop=`).
 *
 * Served by tests (intercepting the CDN URL, with the test secret) and, with the public
 * development credentials only, by the app at /dev/app-bridge.js (src/shopify/dev/app-bridge-standin.ts).
 * Its configuration is a global the server writes before this code (STANDIN_CONFIG_GLOBAL).
 */
import { mintSessionToken } from '../../auth/session-token-mint.ts';
import { STANDIN_CONFIG_GLOBAL, type StandinConfig, type StandinState } from './standin-config.ts';

const config = (window as unknown as Record<string, StandinConfig>)[STANDIN_CONFIG_GLOBAL]!;
const apiKey = document.querySelector<HTMLMetaElement>('meta[name="shopify-api-key"]')?.content ?? '';
const params = new URLSearchParams(location.search);
const shop = params.get('shop') ?? '';
const state: StandinState = { toasts: [], pickerCalls: [] };

const toasts = document.createElement('div');
toasts.setAttribute('role', 'status');
toasts.setAttribute('aria-live', 'polite');
toasts.id = 'app-bridge-toasts';
Object.assign(toasts.style, { position: 'fixed', bottom: '16px', left: '50%', transform: 'translateX(-50%)' });

function showToast(message: string, options?: { isError?: boolean; duration?: number }): string {
  const id = `toast-${state.toasts.length + 1}`;
  state.toasts.push({ message, isError: options?.isError ?? false });
  const toast = document.createElement('div');
  toast.className = 'app-bridge-toast';
  toast.textContent = message;
  Object.assign(toast.style, {
    background: options?.isError ? '#8e1f0b' : '#303030',
    color: '#fff',
    padding: '8px 16px',
    borderRadius: '8px',
    marginTop: '8px',
  });
  if (!toasts.isConnected) document.body.append(toasts);
  toasts.append(toast);
  setTimeout(() => toast.remove(), options?.duration ?? 5000);
  return id;
}

const standin = {
  config: { apiKey, shop, host: params.get('host') ?? undefined, locale: 'en' },
  origin: location.origin,
  ready: Promise.resolve(),
  idToken: () => mintSessionToken({ shop, apiKey, issuedAt: Math.floor(Date.now() / 1000) }, config.apiSecret),
  toast: { show: showToast, hide: () => undefined },
  resourcePicker: async (options: unknown) => {
    state.pickerCalls.push(options);
    return config.products;
  },
};

(window as unknown as Record<string, unknown>).shopify = standin;

// The session-token bounce page (src/shopify/auth/session-token-bounce.ts): as App Bridge does, fetch a
// fresh token and reload the address the app asked for with it. Only our own paths.
const reload = params.get('shopify-reload');
if (reload?.startsWith('/') && !reload.startsWith('//')) {
  void standin.idToken().then((token) => {
    const target = new URL(reload, location.origin);
    target.searchParams.set('id_token', token);
    location.replace(target.toString());
  });
}
(window as unknown as Record<string, unknown>).__appBridgeStandin = state;

/** The admin takes the links into its own sidebar; in the frame the element shows nothing. */
class InertNavMenu extends HTMLElement {
  connectedCallback(): void {
    this.style.display = 'none';
  }
}
if (!customElements.get('ui-nav-menu')) customElements.define('ui-nav-menu', InertNavMenu);
