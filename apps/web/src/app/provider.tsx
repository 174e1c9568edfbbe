import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import 'react-toastify/dist/ReactToastify.css';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT } from '@poi/shared/limits';
import { queryClient } from '../lib/query-client';

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
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
    </QueryClientProvider>
  );
}
