import type { ReactNode } from 'react';
import 'react-toastify/dist/ReactToastify.css';
import { AppToasts } from './toasts';

/**
 * What every page has: the toasts. The query cache comes with the screens that read the API
 * (`withQueryClient`), so the sign-in pages do not load TanStack Query.
 */
export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <>
      {children}
      <AppToasts />
    </>
  );
}
