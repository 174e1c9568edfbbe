// `npm test`: every check and every test, in the order that keeps two cores busy.
//
//   1. Two lanes side by side (tsc and ESLint use one core each):
//        lane a: typecheck (server with the SDK's server tests), then the unit tests (shared, web,
//                web-mocks, server-unit, sdk)
//        lane b: lint (ESLint, knip, the dependency rules and module picture), typecheck (shared,
//                web, sdk), then the build
//   2. The server's route tests (three files at a time, each with its own PGlite), the SDK's tests
//      against the real server among them.
//   3. The browser suite (Playwright, three browsers at a time) against the built server.
//
// Every step runs even when an earlier one failed (a red typecheck still shows which tests fail),
// except the browser suite, which needs the build. A lane's output is printed when its step ends,
// so two steps never interleave their lines; each step ends with "step X took N s".
// The exit code is 1 when any step failed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** Runs a command; `live` streams its output, otherwise it is printed in one piece at the end. */
function run(name, cmd, args, { live = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: process.env });
    const chunks = [];
    if (!live) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    child.on('close', (code, signal) => {
      const ok = code === 0;
      if (!live) process.stdout.write(`\n=== ${name}\n${Buffer.concat(chunks).toString()}`);
      console.log(`step ${name} ${ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`}; took ${Math.round((Date.now() - started) / 1000)} s`);
      resolve(ok);
    });
  });
}

async function lane(steps) {
  const results = [];
  for (const step of steps) results.push(await step());
  return results;
}

const results = {};
const record = (name) => (ok) => (results[name] = ok);

const started = Date.now();
await Promise.all([
  lane([
    () => run('typecheck server', bin('tsc'), ['-p', 'apps/server/tsconfig.json', '--noEmit']).then(record('typecheck server')),
    () => run('unit tests', bin('vitest'), ['run', '--project', 'shared', '--project', 'web', '--project', 'web-mocks', '--project', 'server-unit', '--project', 'sdk']).then(record('unit tests')),
  ]),
  lane([
    () => run('eslint', bin('eslint'), ['.']).then(record('eslint')),
    () => run('knip', bin('knip'), ['--no-progress']).then(record('knip')),
    () => run('dependency rules', 'npm', ['run', '--silent', 'deps']).then(record('dependency rules')),
    () => run('typecheck shared', bin('tsc'), ['-p', 'packages/shared/tsconfig.json', '--noEmit']).then(record('typecheck shared')),
    () => run('typecheck web', bin('tsc'), ['-p', 'apps/web/tsconfig.json', '--noEmit']).then(record('typecheck web')),
    // Twice: as the repo builds it and as it is published (NodeNext ESM: .js imports). Its tests
    // against the server and its generator are typechecked with the server.
    () => run('typecheck sdk', 'npm', ['run', '--silent', 'typecheck', '-w', 'packages/sdk']).then(record('typecheck sdk')),
    () => run('build', 'npm', ['run', '--silent', 'build']).then(record('build')),
  ]),
]);

record('route tests')(await run('route tests', bin('vitest'), ['run', '--project', 'server-routes'], { live: true }));

if (results.build) {
  record('browser tests')(await run('browser tests', bin('playwright'), ['test', '-c', 'apps/web/playwright.config.ts'], { live: true }));
} else {
  console.log('step browser tests FAILED (not run: the build failed)');
  results['browser tests'] = false;
}

const failed = Object.entries(results).filter(([, ok]) => !ok).map(([name]) => name);
console.log(`\nnpm test took ${Math.round((Date.now() - started) / 1000)} s; ${failed.length ? `failed: ${failed.join(', ')}` : 'every step passed'}`);
process.exit(failed.length ? 1 : 0);
