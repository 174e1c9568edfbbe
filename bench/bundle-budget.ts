/**
 * The console's weight per route: which JavaScript each screen loads when it is opened, gzipped
 * as the server sends it, against a budget per route. Reads the Vite manifest of the build
 * (apps/web/dist/.vite/manifest.json, `build.manifest: true`): a route loads the entry chunk
 * (index.html) and the lazily imported modules of its screen, each with the closure of its static
 * imports. Dynamic imports below a screen load later (on interaction) and are not counted, except
 * where a screen starts them on its own as it opens (the map of the POI screens), which are listed.
 *
 * Run alone: `npx tsx bench/bundle-budget.ts` (builds the console first unless
 * BUNDLE_SKIP_BUILD=1); `npm run bench` runs it with the Lighthouse audit (bench/console.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'apps/web');
// WEB_DIST_DIR (as the server reads it): build and measure a console built elsewhere than apps/web/dist.
const DIST = process.env.WEB_DIST_DIR ? path.resolve(process.env.WEB_DIST_DIR) : path.join(WEB, 'dist');

interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

// What a signed-in screen loads besides its own module: the stored session is checked with the
// HTTP client and the user schema (lib/auth-store.ts), and the shell brings the query cache.
const SESSION = ['src/lib/api-client.ts', '../../packages/shared/src/schemas/users.ts'];
const SHELL = [...SESSION, 'src/app/shell/app-shell.tsx', 'src/app/query-provider.tsx'];
const MAP = 'src/features/pois/components/poi-map.tsx';

export interface RouteBudget {
  route: string;
  /** Manifest keys (source paths relative to apps/web) the route loads as it opens, besides index.html. */
  modules: string[];
  /** Gzipped JavaScript allowed, in KB (1,024 bytes). */
  budgetKb: number;
}

/**
 * Budgets: /auth/login has a set target of 120 KB; the others are today's figures plus some room, so a
 * screen that starts pulling in another screen's libraries (forms, Leaflet, the docs renderer)
 * fails here. The map screens carry Leaflet and Japan's outline (scripts/japan-outline.mjs).
 */
export const ROUTE_BUDGETS: RouteBudget[] = [
  { route: '/', modules: ['src/features/landing/pages/landing-page.tsx'], budgetKb: 115 },
  { route: '/auth/login', modules: ['src/features/auth/pages/login-page.tsx'], budgetKb: 120 },
  { route: '/auth/verify-otp', modules: ['src/features/auth/pages/verify-otp-page.tsx'], budgetKb: 165 },
  { route: '/auth/magic/:token', modules: ['src/features/auth/pages/magic-link-page.tsx'], budgetKb: 165 },
  { route: '/docs/api', modules: ['src/features/docs/pages/docs-page.tsx', 'src/app/query-provider.tsx'], budgetKb: 175 },
  // Rendered from the server's configuration: the query client and HTTP client, as /docs/api.
  { route: '/commerce', modules: ['src/features/landing/pages/commerce-page.tsx', 'src/app/query-provider.tsx'], budgetKb: 175 },
  { route: '/dashboard', modules: [...SHELL, 'src/app/pages/dashboard-page.tsx'], budgetKb: 185 },
  { route: '/api-keys', modules: [...SHELL, 'src/app/pages/api-keys-page.tsx'], budgetKb: 205 },
  { route: '/usage', modules: [...SHELL, 'src/features/usage/pages/usage-page.tsx'], budgetKb: 185 },
  { route: '/datasets', modules: [...SHELL, 'src/features/datasets/pages/datasets-page.tsx'], budgetKb: 185 },
  { route: '/marketplace', modules: [...SHELL, 'src/features/datasets/pages/marketplace-page.tsx'], budgetKb: 185 },
  { route: '/marketplace/:datasetId', modules: [...SHELL, 'src/app/pages/dataset-detail-page.tsx', MAP], budgetKb: 270 },
  { route: '/poi', modules: [...SHELL, 'src/app/pages/poi-management-page.tsx', MAP], budgetKb: 265 },
  { route: '/profile', modules: [...SHELL, 'src/features/profile/pages/profile-page.tsx'], budgetKb: 195 },
  { route: '/revenue', modules: [...SHELL, 'src/features/revenue/pages/revenue-page.tsx'], budgetKb: 185 },
  { route: '/admin/dashboard', modules: [...SHELL, 'src/features/revenue/pages/admin-dashboard-page.tsx'], budgetKb: 195 },
  { route: '/admin/users', modules: [...SHELL, 'src/features/users/pages/admin-users-page.tsx'], budgetKb: 200 },
  // The corporate form is on react-hook-form + zodResolver like the console's other larger forms
  // (about 16 KB gzipped, a vendor chunk shared with them): 203 KB measured when it moved.
  { route: '/admin/corporate', modules: [...SHELL, 'src/features/corporate/pages/admin-corporate-page.tsx'], budgetKb: 215 },
  { route: '/admin/transfers', modules: [...SHELL, 'src/features/transfers/pages/admin-transfers-page.tsx'], budgetKb: 200 },
  { route: '/admin/pricing', modules: [...SHELL, 'src/features/pricing/pages/admin-pricing-page.tsx'], budgetKb: 200 },
  { route: '/admin/revenue', modules: [...SHELL, 'src/features/revenue/pages/admin-revenue-page.tsx'], budgetKb: 200 },
];

/** Only these chunks may carry Leaflet and the map. */
const MAP_ROUTES = new Set(['/marketplace/:datasetId', '/poi']);

export interface RouteWeight {
  route: string;
  gzipBytes: number;
  rawBytes: number;
  chunks: string[];
  budgetKb: number;
  ok: boolean;
  problems: string[];
}

const gzipCache = new Map<string, number>();
function gzippedSize(file: string): number {
  let size = gzipCache.get(file);
  if (size === undefined) {
    // The build writes the .gz the server sends (apps/web/vite-precompress.ts); small files have none.
    const gz = path.join(DIST, `${file}.gz`);
    size = existsSync(gz) ? readFileSync(gz).length : gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length;
    gzipCache.set(file, size);
  }
  return size;
}

/**
 * A module's chunk: its own manifest entry, or, for a module that is both imported statically
 * and loaded on demand (the HTTP client), the shared chunk named after it ("_api-client-….js").
 */
function resolveKey(manifest: Manifest, key: string): string {
  if (manifest[key]) return key;
  const name = path.basename(key).replace(/\.[cm]?[jt]sx?$/, '');
  const shared = Object.keys(manifest).filter((k) => k.startsWith('_') && manifest[k]!.name === name);
  if (shared.length === 1) return shared[0]!;
  throw new Error(`bundle budget: "${key}" is not in the Vite manifest (moved or renamed? update bench/bundle-budget.ts)`);
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

export function measureRoutes(manifest: Manifest, budgets: RouteBudget[] = ROUTE_BUDGETS): RouteWeight[] {
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry)?.[0];
  if (!entry) throw new Error('bundle budget: no entry in the Vite manifest');
  const mapFiles = new Set(staticClosure(manifest, [MAP]).filter((f) => !staticClosure(manifest, [entry]).includes(f)));
  return budgets.map((b) => {
    const chunks = staticClosure(manifest, [entry, ...b.modules]);
    const gzipBytes = chunks.reduce((sum, f) => sum + gzippedSize(f), 0);
    const rawBytes = chunks.reduce((sum, f) => sum + readFileSync(path.join(DIST, f)).length, 0);
    const problems: string[] = [];
    if (gzipBytes > b.budgetKb * 1024) problems.push(`${(gzipBytes / 1024).toFixed(1)} KB > ${b.budgetKb} KB`);
    if (!MAP_ROUTES.has(b.route)) {
      const stray = chunks.filter((f) => mapFiles.has(f));
      if (stray.length) problems.push(`loads the map's code: ${stray.join(', ')}`);
    }
    return { route: b.route, gzipBytes, rawBytes, chunks, budgetKb: b.budgetKb, ok: problems.length === 0, problems };
  });
}

export function buildConsole(): void {
  const outDir = process.env.WEB_DIST_DIR ? ['--', '--outDir', DIST, '--emptyOutDir'] : [];
  execFileSync('npm', ['run', 'build', '-w', 'apps/web', ...outDir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

export function readManifest(): Manifest {
  return JSON.parse(readFileSync(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Manifest;
}

export function printWeights(weights: RouteWeight[]): void {
  console.log('\nconsole weight: JavaScript each route loads as it opens (gzip as served; budget)');
  for (const w of weights) {
    const kb = (w.gzipBytes / 1024).toFixed(1).padStart(6);
    const raw = (w.rawBytes / 1024).toFixed(0).padStart(5);
    console.log(`  ${w.route.padEnd(26)} ${kb} KB gzip (${raw} KB raw, ${String(w.chunks.length).padStart(2)} files)  budget ${String(w.budgetKb).padStart(3)} KB  ${w.ok ? 'PASS' : `FAIL: ${w.problems.join('; ')}`}`);
  }
}

/** Builds (unless BUNDLE_SKIP_BUILD=1), measures and prints; the routes over budget. */
export function runBundleBudget(): RouteWeight[] {
  if (process.env.BUNDLE_SKIP_BUILD !== '1') buildConsole();
  const weights = measureRoutes(readManifest());
  printWeights(weights);
  return weights;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const failed = runBundleBudget().filter((w) => !w.ok);
  console.log(failed.length ? `\n${failed.length} route(s) over budget` : '\nevery route within its budget');
  process.exitCode = failed.length ? 1 : 0;
}
