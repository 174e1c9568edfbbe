import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, matchRoutes, useRoutes } from 'react-router';
import { STORAGE_TOKEN_KEY } from '@poi/shared/limits';
import './index.css';
import { preloadScreens } from './app/lazy-screen';
import { AppProvider } from './app/provider';
import { routes } from './app/router';
import { initAuth } from './lib/auth-store';

function App() {
  return useRoutes(routes);
}

// A release replaces the hashed chunks: a tab opened before it reloads once to get the new ones.
window.addEventListener('vite:preloadError', (event) => {
  const key = 'chunk-reload-at';
  const last = Number(window.sessionStorage.getItem(key) ?? 0);
  if (Date.now() - last < 10_000) return; // it did not help: let the error show
  window.sessionStorage.setItem(key, String(Date.now()));
  event.preventDefault();
  window.location.reload();
});

// With a stored session the start-up check loads the HTTP client first; the screens of the page
// being opened (the shell and the page itself) download meanwhile rather than after it.
if (window.localStorage.getItem(STORAGE_TOKEN_KEY)) {
  matchRoutes(routes, window.location)?.forEach((match) => preloadScreens(match.route.element));
}

// The auth state is settled before the router makes its first navigation (so that the route guards see it).
// After that, a cleared session (logout, any 401) re-renders the guards, which go to login.
// The first render runs as a transition: React renders it in slices and yields to the browser in
// between, instead of one long task that keeps the phone's main thread busy (Lighthouse's TBT).
void initAuth(() => import('./app/session').then((m) => m.sessionApi)).then(() => {
  const root = createRoot(document.getElementById('root')!);
  startTransition(() => {
    root.render(
      <StrictMode>
        <AppProvider>
          <BrowserRouter>
            <App />
          </BrowserRouter>
        </AppProvider>
      </StrictMode>,
    );
  });
});
