/**
 * The embedded admin: React + Polaris inside the Shopify admin's iframe, App Bridge for the session
 * token, toasts, the resource picker and the sidebar menu. Bundled by src/shopify/admin/page.ts.
 */
import { AppProvider } from '@shopify/polaris';
import en from '@shopify/polaris/locales/en.json';
import { createRoot } from 'react-dom/client';
import { AppLink, useRoute } from './navigation.tsx';
import { HomeView } from './views/home.tsx';
import { NotFoundView } from './views/not-found.tsx';
import { OrderView } from './views/order.tsx';
import { OrdersView } from './views/orders.tsx';
import { SettingsView } from './views/settings.tsx';

function App() {
  const route = useRoute();
  return (
    <AppProvider i18n={en} linkComponent={AppLink}>
      {/* App Bridge draws these in the admin's sidebar; the first, rel="home", is the app's root. */}
      <ui-nav-menu>
        <a href="/" rel="home">
          Home
        </a>
        <a href="/orders">Orders</a>
        <a href="/settings">Settings</a>
      </ui-nav-menu>
      {route.view === 'home' && <HomeView />}
      {route.view === 'orders' && <OrdersView />}
      {route.view === 'order' && <OrderView key={route.id} id={route.id} />}
      {route.view === 'settings' && <SettingsView />}
      {route.view === 'not_found' && <NotFoundView />}
    </AppProvider>
  );
}

createRoot(document.getElementById('app')!).render(<App />);
