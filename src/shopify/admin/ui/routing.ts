/**
 * The page's own routes. Shopify keeps the app in its iframe and mirrors the frame's path in the
 * admin's address bar, so views are paths changed with the history API (no reload), and the
 * server answers the same paths with the page when Shopify reloads the frame on one of them.
 * The query (shop, host, embedded, id_token) is kept on every path: App Bridge reads it.
 */
export type Route =
  { view: 'home' } | { view: 'orders' } | { view: 'order'; id: string } | { view: 'settings' } | { view: 'not_found' };

/** The paths the server serves the page at (besides `/` and `/shopify/app`): keep in step with admin/page.ts. */
export function routeOf(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === '/shopify/app') return { view: 'home' };
  if (path === '/orders') return { view: 'orders' };
  if (path === '/settings') return { view: 'settings' };
  const order = /^\/orders\/([^/]+)$/.exec(path);
  if (order) return { view: 'order', id: decodeURIComponent(order[1]!) };
  return { view: 'not_found' };
}

export function pathOf(route: Route): string {
  switch (route.view) {
    case 'home':
    case 'not_found':
      return '/';
    case 'orders':
      return '/orders';
    case 'order':
      return `/orders/${encodeURIComponent(route.id)}`;
    case 'settings':
      return '/settings';
  }
}
