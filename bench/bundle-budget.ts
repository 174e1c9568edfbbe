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
import { entryKey, MAP_MODULE, ROUTE_MODULES, staticClosure } from '../apps/web/src/app/route-modules';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'apps/web');
// WEB_DIST_DIR (as the server reads it): build and measure a console built elsewhere than apps/web/dist.
const DIST = process.env.WEB_DIST_DIR ? path.resolve(process.env.WEB_DIST_DIR) : path.join(WEB, 'dist');

type Manifest = Parameters<typeof staticClosure>[0];

export interface RouteBudget {
  route: string;
  /** Manifest keys (source paths relative to apps/web) the route loads as it opens, besides index.html. */
  modules: string[];
  /** Gzipped JavaScript allowed, in KB (1,024 bytes). */
  budgetKb: number;
}

/**
 * Budgets per route of the console's own table (apps/web/src/app/route-modules.ts, which also
 * gives the build its modulepreload list): /auth/login has a set target of 120 KB; the others are
 * the figures measured when the HTTP client moved from axios to fetch, plus some room, so a screen that starts pulling in another screen's libraries
 * (forms, Leaflet, the docs renderer) fails here. The map screens carry Leaflet and Japan's
 * outline (scripts/japan-outline.mjs). The corporate form is on react-hook-form + zodResolver
 * like the console's other larger forms (about 16 KB gzipped, a vendor chunk shared with them).
 */
const BUDGET_KB: Record<string, number> = {
  '/': 115,
  '/auth/login': 120,
  '/auth/verify-otp': 145,
  '/auth/magic/:token': 145,
  '/docs/api': 160,
  '/commerce': 150,
  '/dashboard': 165,
  '/api-keys': 190,
  '/usage': 170,
  '/datasets': 170,
  '/marketplace': 170,
  '/marketplace/:datasetId': 255,
  '/poi': 250,
  '/billing': 180,
  '/billing/invoices/:id': 170,
  '/profile': 175,
  '/upgrade': 185,
  '/payment-method': 185,
  '/payment-method/complete': 165,
  '/revenue': 170,
  '/admin/dashboard': 170,
  '/admin/users': 180,
  '/admin/corporate': 200,
  '/admin/transfers': 175,
  '/admin/pricing': 185,
  '/admin/revenue': 170,
};

export const ROUTE_BUDGETS: RouteBudget[] = ROUTE_MODULES.map((r) => {
  const budgetKb = BUDGET_KB[r.path];
  if (budgetKb === undefined) throw new Error(`bundle budget: no budget for ${r.path} (add it to bench/bundle-budget.ts)`);
  return { route: r.path, modules: r.modules, budgetKb };
});

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

export function measureRoutes(manifest: Manifest, budgets: RouteBudget[] = ROUTE_BUDGETS): RouteWeight[] {
  const entry = entryKey(manifest);
  const mapFiles = new Set(staticClosure(manifest, [MAP_MODULE]).filter((f) => !staticClosure(manifest, [entry]).includes(f)));
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
