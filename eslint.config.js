import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { readdirSync } from 'node:fs';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';

// Zones come from the folders, so a new feature or server module is guarded the day it appears.
const foldersIn = (dir) =>
  readdirSync(new URL(dir, import.meta.url), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
const webFeatures = foldersIn('./apps/web/src/features');
const serverModules = foldersIn('./apps/server/src/modules');

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '**/migrations/**', 'coverage/**', 'test-results/**', 'playwright-report/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    // Without a resolver import-x cannot follow extensionless `.ts` imports and its path rules
    // (no-restricted-paths, no-cycle) silently skip them. The node resolver also reads the
    // `exports` map, which is how `@poi/shared/*` resolves to packages/shared/src.
    // import-x/extensions and import-x/parsers let no-cycle read the TypeScript files it follows.
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['axios'], message: 'Use lib/api-client.ts, the one HTTP client.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/src/lib/api-client.ts', 'apps/web/src/lib/api-client.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Layering (docs/conventions.md "Layering"): components|lib → features → app. A feature never imports another
    // feature; pages that compose features live in app/ (app/pages).
    files: ['apps/web/src/**/*.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...webFeatures.map((f) => ({
              target: `./apps/web/src/features/${f}`,
              from: './apps/web/src/features',
              except: [`./${f}`],
              message: 'A feature never imports another feature; compose them in app/ (app/pages).',
            })),
            {
              target: ['./apps/web/src/components', './apps/web/src/lib'],
              from: ['./apps/web/src/features', './apps/web/src/app'],
              message: 'components/ and lib/ are shared by all features and import neither features nor app.',
            },
            { target: './apps/web/src/features', from: './apps/web/src/app', message: 'Features never import app/; app composes features.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/src/modules/**/*.routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/db/*', '**/db'], message: 'Routes call services; repositories hold SQL.' }] },
      ],
    },
  },
  // A module talks to another module through the service it is handed (composition root), so
  // it may name that service's types but never import its values: those belong in a shared file.
  // And SQL lives in *.repository.ts: elsewhere in a module neither drizzle-orm's builders nor the
  // database client's values may be imported, and no database handle is queried directly
  // (services open transactions with db/transaction.ts's inTransaction and call repositories).
  // core/typescript-eslint `no-restricted-imports` is used because import-x/no-restricted-paths
  // cannot tell `import type` from a value import.
  ...serverModules.flatMap((m) => {
    const otherServices = {
      group: ['../*/*.service', '../*/*.service.js', `!../${m}/*`],
      allowTypeImports: true,
      message: "Import only types from another module's service; move shared values out of the service file.",
    };
    const sqlOutsideRepositories = {
      group: ['drizzle-orm', 'drizzle-orm/*', '**/db/client', 'pg', 'pg-copy-streams'],
      allowTypeImports: true,
      message: 'SQL lives in *.repository.ts: call a repository function.',
    };
    return [
      {
        files: [`apps/server/src/modules/${m}/**/*.repository.ts`],
        rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [otherServices] }] },
      },
      {
        files: [`apps/server/src/modules/${m}/**/*.ts`],
        ignores: ['**/*.repository.ts', '**/*.test.ts'],
        rules: {
          '@typescript-eslint/no-restricted-imports': ['error', { patterns: [otherServices, sqlOutsideRepositories] }],
          'no-restricted-syntax': [
            'error',
            {
              selector: 'CallExpression[callee.object.name=/^(db|tx|ex|database)$/][callee.property.name=/^(select|selectDistinct|insert|update|delete|execute|transaction|query)$/]',
              message: 'SQL lives in *.repository.ts (transactions: inTransaction from db/transaction.ts).',
            },
          ],
        },
      },
    ];
  }),
  {
    files: ['apps/server/src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.mjs', 'apps/server/build.mjs', 'packages/sdk/scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
