import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import 'react-toastify/dist/ReactToastify.css';
import { queryClient } from '../lib/query-client';
import { AppToasts } from './toasts';

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      {children}
      <AppToasts />
    </QueryClientProvider>
  );
}
