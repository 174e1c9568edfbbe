import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  test: {
    projects: [
      {
        // Node-only unit tests without module mocks keep their modules from file to file, as the route
        // tests do (isolate: false); the web project mocks modules per file and stays isolated.
        test: { name: 'shared', include: ['packages/shared/src/**/*.test.ts'], environment: 'node', isolate: false },
      },
      {
        plugins: [react()],
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['apps/web/src/test/setup.ts'],
        },
      },
      {
        test: { name: 'server-unit', include: ['apps/server/src/**/*.test.ts'], environment: 'node', isolate: false },
      },
      {
        // The SDK against stub servers; its tests against the real server run with the route tests.
        test: { name: 'sdk', include: ['packages/sdk/src/**/*.test.ts'], environment: 'node', isolate: false },
      },
      {
        test: {
          name: 'server-routes',
          include: ['apps/server/test/**/*.test.ts', 'packages/sdk/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          globalSetup: ['apps/server/test/support/pglite-dump.ts'],
          // vitest's default on 2 cores is one file at a time (cores - 1), leaving the other core
          // idle while a file's PGlite works in that file's process: two files at a time.
          maxWorkers: 2,
          // Each file's own module graph (the whole server, imported anew per file) cost more than
          // the tests themselves; files share nothing but modules (each opens its own database
          // and app), so a worker keeps its modules from one file to the next.
          isolate: false,
        },
      },
    ],
  },
});
