import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { consoleRoutes } from './src/app/route-modules';

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;
const MIN_BYTES = 1024;

/**
 * Writes `.br` (quality 11) and `.gz` (level 9) beside every text file of the build, once, at
 * build time; the server's static handler sends them to browsers that accept them
 * (`preCompressed`). The on-the-fly compression of the API runs at fast settings and skips
 * answers under 16 KB, which would leave most chunks of the split console uncompressed.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'poi-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const file = path.join(dir, name);
          return statSync(file).isDirectory() ? (name === '.vite' ? [] : walk(file)) : [file];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const body = readFileSync(file);
        if (body.length < MIN_BYTES) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

/**
 * Writes dist/console-routes.json: which paths are signed-in screens, and what the server draws in
 * them before the scripts run (src/app/route-modules.ts).
 */
function consoleRouteList(): Plugin {
  return {
    name: 'poi-console-routes',
    apply: 'build',
    writeBundle(options) {
      writeFileSync(path.join(options.dir ?? 'dist', 'console-routes.json'), `${JSON.stringify(consoleRoutes(), null, 1)}\n`);
    },
  };
}

const api = process.env.VITE_DEV_API ?? 'http://localhost:8080';

/**
 * Libraries grouped into chunks of their own: they change far less often than the console's
 * code, so a release that touches only screens keeps these files (and their immutable cache
 * entries) in the browser. A group holds only what its screens use: the forms libraries load
 * with the first form, Leaflet with the first map.
 */
const vendorGroups: { name: string; test: RegExp; priority: number }[] = [
  { name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser)[\\/]/, priority: 30 },
  { name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]/, priority: 20 },
  { name: 'query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/, priority: 20 },
  { name: 'forms', test: /[\\/]node_modules[\\/](react-hook-form|@hookform)[\\/]/, priority: 20 },
  { name: 'icons', test: /[\\/]node_modules[\\/]lucide-react[\\/]/, priority: 20 },
  { name: 'leaflet', test: /[\\/]node_modules[\\/](leaflet|react-leaflet|@react-leaflet)[\\/]/, priority: 20 },
];

export default defineConfig({
  plugins: [react(), tailwindcss(), consoleRouteList(), precompress()],
  // Every `import … from 'zod'` (the shared schemas' too) goes through zod-ja.ts, which sets the
  // Japanese locale before any schema exists; it imports the real package as 'zod/v4'.
  resolve: { alias: [{ find: /^zod$/, replacement: fileURLToPath(new URL('./src/lib/zod-ja.ts', import.meta.url)) }] },
  server: {
    port: 5173,
    proxy: { '/console': api, '/api': api, '/openapi.json': api, '/healthz': api },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // .vite/manifest.json: each chunk's static and dynamic imports, read by bench/bundle-budget.ts.
    manifest: true,
    rolldownOptions: { output: { codeSplitting: { groups: vendorGroups } } },
  },
});
