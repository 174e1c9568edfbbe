import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const webTests = readdirSync(path.join(root, 'apps/web/src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => path.posix.join('apps/web/src', file.split(path.sep).join('/')))
  .sort();
const mocksModules = (file: string) => /\bvi\.mock\(/.test(readFileSync(path.join(root, file), 'utf8'));
const webTest = { environment: 'jsdom', setupFiles: ['apps/web/src/test/setup.ts'] } as const;

export default defineConfig({
  test: {
    projects: [
      {
        // Node-only unit tests without module mocks keep their modules from file to file, as the route
        // tests do (isolate: false); the web project mocks modules per file and stays isolated.
        test: { name: 'shared', include: ['packages/shared/src/**/*.test.ts'], environment: 'node', isolate: false },
      },
      {
        // The console's tests without module mocks share modules and the DOM environment from file
        // to file (one jsdom per worker instead of one per file: 54 s → 14 s for the whole web
        // project when every file could). A file that calls vi.mock needs modules of its own (a
        // component loaded by an earlier file would keep the real module): those run in
        // 'web-mocks', isolated.
        plugins: [react()],
        test: { ...webTest, name: 'web', include: webTests.filter((f) => !mocksModules(f)), isolate: false },
      },
      {
        plugins: [react()],
        test: { ...webTest, name: 'web-mocks', include: webTests.filter(mocksModules) },
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
          // idle while a file's PGlite works in that file's process. Three at a time on two cores:
          // with two, a fifth of the CPU stayed idle (files waiting on timers, spawned servers and
          // sockets); three took the route tests from 199 s to 180 s on one machine.
          maxWorkers: 3,
          // Each file's own module graph (the whole server, imported anew per file) cost more than
          // the tests themselves; files share nothing but modules (each opens its own database
          // and app), so a worker keeps its modules from one file to the next.
          isolate: false,
        },
      },
    ],
  },
});
