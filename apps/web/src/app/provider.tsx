import type { ReactNode } from 'react';
import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT } from '@poi/shared/limits';

/**
 * What every page has: the toasts. The query cache comes with the screens that read the API
 * (`withQueryClient`), so the sign-in pages do not load TanStack Query.
 */
export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <>
      {children}
      <ToastContainer
        position="top-right"
        autoClose={TOAST_AUTO_CLOSE_MS}
        limit={TOAST_LIMIT}
        pauseOnHover
        pauseOnFocusLoss
        draggable
        newestOnTop
      />
    </>
  );
}
