import { QueryClient } from '@tanstack/react-query';
import { statusOf } from './api-client';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // A 4xx will not change on retry; network hiccups may.
      retry: (count, error) => {
        const status = statusOf(error);
        return count < 2 && (status === undefined || status >= 500);
      },
    },
    mutations: { retry: false },
  },
});
