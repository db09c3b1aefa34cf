import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-aria-components';
import { Router, useLocation } from 'wouter';
import { App } from './App.tsx';
import { ApiError } from './api/client.ts';
import './styles.css';

/** Where the service mounts the UI (vite.config.ts `base` without its trailing slash). */
const BASE = '/settings';

const queryClient: QueryClient = new QueryClient({
  // A session that ended (idle 12 h, signed out elsewhere) shows the sign-in page again.
  queryCache: new QueryCache({
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'unauthenticated') queryClient.setQueryData(['viewer'], null);
    },
  }),
  defaultOptions: {
    queries: {
      // A refused or missing record will not change by asking again; a network blip might.
      retry: (count, error) => count < 2 && error instanceof ApiError && error.code === 'network_error',
      refetchOnWindowFocus: true,
    },
  },
});

/** react-aria's links and buttons with `href` navigate through wouter, inside /settings. */
function AriaRouter({ children }: { children: React.ReactNode }) {
  const [, navigate] = useLocation();
  return (
    <RouterProvider navigate={(to) => navigate(to)} useHref={(to) => (to.startsWith('/') ? BASE + to : to)}>
      {children}
    </RouterProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router base={BASE}>
        <AriaRouter>
          <App />
        </AriaRouter>
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
