import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { z } from 'zod';
import './index.css';
import { AppProvider } from './app/provider';
import { createAppRouter } from './app/router';
import { initAuth } from './lib/auth-store';

z.config(z.locales.ja());

// The auth state is settled before the router makes its first navigation (spec 2, guards).
// After that, a cleared session (logout, any 401) re-renders the guards, which go to login.
void initAuth().then(() => {
  const router = createAppRouter();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <AppProvider>
        <RouterProvider router={router} />
      </AppProvider>
    </StrictMode>,
  );
});
