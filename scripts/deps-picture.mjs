// The server's module picture, generated from its imports (dependency-cruiser):
//   node scripts/deps-picture.mjs          writes docs/architecture-deps.md
//   node scripts/deps-picture.mjs --check  fails when that file is stale, or when the modules'
//                                          arrows form a circle (a file-level cycle is
//                                          dependency-cruiser's own no-circular rule).
// A node is a server module (apps/server/src/modules/<m>), or one of lib, db, plugins, the shared
// contract, config.ts, and the composition root (app.ts, server.ts). Tests are left out.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs/architecture-deps.md');
const bin = path.join(root, 'node_modules/.bin/depcruise');
const json = execFileSync(bin, ['apps/server/src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json', '--exclude', '\\.test\\.ts$'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});

const nodeOf = (file) => {
  let m = /^apps\/server\/src\/modules\/([^/]+)\//.exec(file);
  if (m) return m[1];
  m = /^apps\/server\/src\/(lib|db|plugins)\//.exec(file);
  if (m) return m[1];
  if (file === 'apps/server/src/config.ts') return 'config';
  if (/^apps\/server\/src\/(app|server)\.ts$/.test(file)) return 'app';
  if (file.startsWith('packages/shared/')) return 'shared';
  return undefined;
};

const edges = new Map();
for (const mod of JSON.parse(json).modules) {
  const from = nodeOf(mod.source);
  if (!from) continue;
  for (const dep of mod.dependencies) {
    const to = nodeOf(dep.resolved);
    if (!to || to === from) continue;
    const key = `${from} ${to}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
  }
}

// Circles between nodes (Tarjan's strongly connected components).
const graph = new Map();
for (const key of edges.keys()) {
  const [a, b] = key.split(' ');
  if (!graph.has(a)) graph.set(a, []);
  if (!graph.has(b)) graph.set(b, []);
  graph.get(a).push(b);
}
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
const visit = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const scc = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) circles.push(scc.sort());
  }
};
for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);

// Layers, bottom up: a node's layer is one above the highest node it imports.
const layer = new Map();
const layerOf = (v, seen = new Set()) => {
  if (layer.has(v)) return layer.get(v);
  if (seen.has(v)) return 0;
  seen.add(v);
  const l = Math.max(-1, ...graph.get(v).map((w) => layerOf(w, seen))) + 1;
  layer.set(v, l);
  return l;
};
for (const v of graph.keys()) layerOf(v);

const id = (v) => v.replace(/[^a-z0-9]/gi, '_');
const sorted = [...edges.keys()].sort();
const lines = [
  '# The server\'s modules and their imports',
  '',
  'Generated from the imports by `node scripts/deps-picture.mjs` (dependency-cruiser); `npm test`',
  'fails when this file is stale or when the arrows below form a circle. An arrow `a --> b` means',
  'files of `a` import files of `b` (the number is how many imports); tests are left out. Every',
  'arrow points down the layers: the composition root (`app`: app.ts and server.ts) wires',
  'the modules, modules use other modules\' repositories and types, and `lib`, `db` and the shared',
  'contract (`shared`, packages/shared) import no module.',
  '',
  '```mermaid',
  'flowchart TD',
  ...[...graph.keys()].sort().map((v) => `  ${id(v)}["${v}"]`),
  ...sorted.map((key) => {
    const [a, b] = key.split(' ');
    return `  ${id(a)} -->|${edges.get(key)}| ${id(b)}`;
  }),
  '```',
  '',
  '## Layers',
  '',
  'Bottom (0) to top; a node only imports nodes of lower layers.',
  '',
  '| Layer | Nodes |',
  '|---|---|',
  ...[...new Set(layer.values())]
    .sort((a, b) => a - b)
    .map((l) => `| ${l} | ${[...layer].filter(([, x]) => x === l).map(([v]) => v).sort().join(', ')} |`),
  '',
];
const text = lines.join('\n');

if (process.argv.includes('--check')) {
  let failed = false;
  if (circles.length) {
    console.error(`module circles: ${circles.map((c) => c.join(' ⇄ ')).join('; ')}`);
    failed = true;
  }
  const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  if (current !== text) {
    console.error('docs/architecture-deps.md is stale: run `node scripts/deps-picture.mjs`');
    failed = true;
  }
  if (failed) process.exit(1);
  console.log(`module picture current: ${graph.size} nodes, ${edges.size} arrows, no circle`);
} else {
  fs.writeFileSync(out, text);
  console.log(`wrote ${path.relative(root, out)}: ${graph.size} nodes, ${edges.size} arrows`);
  if (circles.length) console.log(`module circles: ${circles.map((c) => c.join(' ⇄ ')).join('; ')}`);
}
