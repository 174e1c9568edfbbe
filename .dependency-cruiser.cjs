/**
 * The import rules the code keeps, checked in `npm test` (`npm run deps`), and the source of the
 * module picture in docs/architecture-deps.md (`npm run deps:picture`).
 *
 * Server: lib/ and db/ are the bottom (they import no module, plugin or app file); modules may use
 * lib/, db/ and plugins/ but never app.ts or server.ts; no cycles anywhere. The console's own
 * boundaries (features never import features) are ESLint's (eslint.config.js), which sees type
 * imports as well.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes load order matter and hides which side owns the concept.',
      from: { path: '^(apps|packages)/' },
      to: { circular: true },
    },
    {
      name: 'server-lib-db-are-the-bottom',
      severity: 'error',
      comment: 'lib/ and db/ hold generic helpers and the tables; they never know a module.',
      from: { path: '^apps/server/src/(lib|db)/' },
      to: { path: '^apps/server/src/(modules|plugins|app\\.ts|server\\.ts)' },
    },
    {
      name: 'modules-never-import-the-composition-root',
      severity: 'error',
      from: { path: '^apps/server/src/(modules|plugins|lib|db)/' },
      to: { path: '^apps/server/src/(app|server|config)\\.ts$', pathNot: '^apps/server/src/config\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a file moved without its users.',
      from: {},
      to: { couldNotResolve: true, pathNot: '^(node:|virtual:)' },
    },
    {
      name: 'shared-is-the-contract',
      severity: 'error',
      comment: 'packages/shared is imported by both apps and imports neither.',
      from: { path: '^packages/shared/' },
      to: { path: '^apps/' },
    },
    {
      name: 'web-never-imports-server',
      severity: 'error',
      from: { path: '^apps/web/src/' },
      to: { path: '^apps/server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    combinedDependencies: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
