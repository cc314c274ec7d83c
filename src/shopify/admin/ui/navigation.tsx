import type { AppProviderProps } from '@shopify/polaris';
import { useEffect, useState, type MouseEvent } from 'react';
import { routeOf, type Route } from './routing.ts';

/** Moves to another view of the page without a reload, keeping the query App Bridge reads. */
export function navigate(path: string): void {
  history.pushState(null, '', `${path}${location.search}`);
  window.dispatchEvent(new PopStateEvent('popstate'));
  window.scrollTo(0, 0);
}

/** The current view; changes on `navigate`, the browser's back and forward, and App Bridge's menu. */
export function useRoute(): Route {
  const [pathname, setPathname] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPathname(location.pathname);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return routeOf(pathname);
}

/** Polaris's links: our own paths move inside the page, other addresses open as links do. */
export const AppLink: NonNullable<AppProviderProps['linkComponent']> = ({ url, external, children, ...rest }) => {
  const internal = url.startsWith('/') && !url.startsWith('//') && !external;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!internal || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(url);
  };
  return (
    <a
      {...rest}
      href={internal ? `${url}${location.search}` : url}
      onClick={onClick}
      {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
    >
      {children}
    </a>
  );
};
