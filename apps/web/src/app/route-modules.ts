/**
 * Every route of router.tsx with what it loads as it opens: the lazily imported modules of its
 * screen (Vite manifest keys, relative to apps/web), each with the closure of its static imports
 * (the console weight budget, bench/bundle-budget.ts), and whether it is a signed-in screen (the
 * build writes those paths to dist/console-routes.json for the server, see SIGNED_IN_PLACEHOLDER).
 * route-modules.test.ts keeps it equal to the router's paths.
 */

// A signed-in screen: the stored session is checked with the HTTP client and the user schema
// (app/session.ts, loaded by main.tsx for a stored session), the shell brings the query cache.
const SESSION = ['src/app/session.ts'];
const SHELL = [...SESSION, 'src/app/shell/app-shell.tsx', 'src/app/query-provider.tsx'];
/** The map, which the POI screens start loading on their own as they open. */
export const MAP_MODULE = 'src/features/pois/components/poi-map.tsx';

export interface RouteModules {
  /** The router's path, `:name` for a parameter. */
  path: string;
  modules: string[];
  /** Behind RequireAuth, in the shell: the server draws the shell's top bar before the script runs. */
  signedIn: boolean;
}

const guest = (path: string, ...modules: string[]): RouteModules => ({ path, modules, signedIn: false });
const signedIn = (path: string, ...modules: string[]): RouteModules => ({ path, modules: [...SHELL, ...modules], signedIn: true });

export const ROUTE_MODULES: RouteModules[] = [
  guest('/', 'src/features/landing/pages/landing-page.tsx'),
  guest('/auth/login', 'src/features/auth/pages/login-page.tsx'),
  guest('/auth/verify-otp', 'src/features/auth/pages/verify-otp-page.tsx'),
  guest('/auth/magic/:token', 'src/features/auth/pages/magic-link-page.tsx'),
  guest('/docs/api', 'src/features/docs/pages/docs-page.tsx', 'src/app/query-provider.tsx'),
  // Rendered from the server's configuration: the query client and HTTP client, as /docs/api.
  guest('/commerce', 'src/features/landing/pages/commerce-page.tsx', 'src/app/query-provider.tsx'),
  signedIn('/dashboard', 'src/app/pages/dashboard-page.tsx'),
  signedIn('/api-keys', 'src/app/pages/api-keys-page.tsx'),
  signedIn('/usage', 'src/features/usage/pages/usage-page.tsx'),
  signedIn('/datasets', 'src/features/datasets/pages/datasets-page.tsx'),
  signedIn('/poi', 'src/app/pages/poi-management-page.tsx', MAP_MODULE),
  signedIn('/marketplace', 'src/features/datasets/pages/marketplace-page.tsx'),
  signedIn('/marketplace/:datasetId', 'src/app/pages/dataset-detail-page.tsx', MAP_MODULE),
  signedIn('/billing', 'src/app/pages/billing-page.tsx'),
  signedIn('/billing/invoices/:id', 'src/features/invoices/pages/invoice-detail-page.tsx'),
  signedIn('/profile', 'src/features/profile/pages/profile-page.tsx'),
  signedIn('/upgrade', 'src/features/corporate/pages/upgrade-page.tsx'),
  signedIn('/payment-method', 'src/features/payments/pages/payment-method-page.tsx'),
  signedIn('/payment-method/complete', 'src/features/payments/pages/payment-complete-page.tsx'),
  signedIn('/revenue', 'src/features/revenue/pages/revenue-page.tsx'),
  signedIn('/admin/dashboard', 'src/features/revenue/pages/admin-dashboard-page.tsx'),
  signedIn('/admin/users', 'src/features/users/pages/admin-users-page.tsx'),
  signedIn('/admin/corporate', 'src/features/corporate/pages/admin-corporate-page.tsx'),
  signedIn('/admin/transfers', 'src/features/transfers/pages/admin-transfers-page.tsx'),
  signedIn('/admin/pricing', 'src/features/pricing/pages/admin-pricing-page.tsx'),
  signedIn('/admin/revenue', 'src/features/revenue/pages/admin-revenue-page.tsx'),
];

/** An entry of the Vite manifest (`build.manifest: true`). */
export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

/**
 * A module's chunk: its own manifest entry, or, for a module that is both imported statically
 * and loaded on demand, the shared chunk named after it ("_api-client-….js").
 */
function resolveKey(manifest: Manifest, key: string): string {
  if (manifest[key]) return key;
  const name = key.replace(/^.*\//, '').replace(/\.[cm]?[jt]sx?$/, '');
  const shared = Object.keys(manifest).filter((k) => k.startsWith('_') && manifest[k]!.name === name);
  if (shared.length === 1) return shared[0]!;
  throw new Error(`route modules: "${key}" is not in the Vite manifest (moved or renamed? update apps/web/src/app/route-modules.ts)`);
}

/** The JavaScript files a set of manifest keys loads: each chunk with its static imports, recursively. */
export function staticClosure(manifest: Manifest, keys: string[]): string[] {
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key]!;
    if (chunk.file.endsWith('.js')) files.add(chunk.file);
    chunk.imports?.forEach(visit);
  };
  keys.map((k) => resolveKey(manifest, k)).forEach(visit);
  return [...files];
}

export const entryKey = (manifest: Manifest): string => {
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry)?.[0];
  if (!entry) throw new Error('route modules: no entry in the Vite manifest');
  return entry;
};

/**
 * What the server puts in #root for a signed-in route, so that the page paints before its scripts
 * have arrived (Lighthouse's mobile FCP went from about 2.2 s to 1.2–1.7 s): the top bar of the
 * shell (app-shell.tsx) with the product name where the shell draws it. React replaces it with the
 * real shell on its first render. (Naming the screen's chunks as modulepreload links in the same
 * page was tried too: Lighthouse then counted every chunk as needed for the first paint, FCP 2.0 s.)
 */
export const SIGNED_IN_PLACEHOLDER =
  '<div aria-hidden="true" class="fixed inset-x-0 top-0 z-40 flex h-14 items-center gap-1 border-b border-gray-200 bg-white px-2 sm:gap-2 sm:px-4">' +
  '<span class="h-11 w-11 lg:hidden"></span><span class="flex min-h-11 items-center gap-2 px-1 text-lg font-bold text-blue-800"><span class="h-5 w-5"></span>POI Cloud</span></div>';

/** dist/console-routes.json, read by the server (apps/server/src/lib/console-pages.ts). */
export interface ConsoleRoutes {
  /** Router paths of the signed-in screens, `:name` for a parameter. */
  signedIn: string[];
  signedInPlaceholder: string;
}

export const consoleRoutes = (): ConsoleRoutes => ({
  signedIn: ROUTE_MODULES.filter((r) => r.signedIn).map((r) => r.path),
  signedInPlaceholder: SIGNED_IN_PLACEHOLDER,
});
