import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './helpers';

// The console build as apps/web/vite.config.ts writes it: hashed chunks under assets/, each text
// file with .br and .gz beside it, and index.html for every history-mode path.
const chunk = `export const screen = ${JSON.stringify('ログイン画面 '.repeat(400))};\n`;
const dist = mkdtempSync(path.join(tmpdir(), 'poi-console-dist-'));
mkdirSync(path.join(dist, 'assets'));
const indexHtml = '<!doctype html><html lang="ja"><head><title>POI Cloud</title></head><body><div id="root"></div></body></html>';
writeFileSync(path.join(dist, 'index.html'), indexHtml);
// What the build's route table (apps/web/src/app/route-modules.ts) makes of it.
writeFileSync(
  path.join(dist, 'console-routes.json'),
  JSON.stringify({ signedInPlaceholder: '<div aria-hidden="true">POI Cloud</div>', signedIn: ['/billing', '/marketplace/:datasetId'] }),
);
const chunkFile = path.join(dist, 'assets/login-page-AbC123xy.js');
writeFileSync(chunkFile, chunk);
writeFileSync(`${chunkFile}.br`, brotliCompressSync(chunk));
writeFileSync(`${chunkFile}.gz`, gzipSync(chunk));

let ctx: TestContext;
let base: { host: string; port: number };

/** A raw request over a real socket: the body exactly as sent, still encoded. */
function get(pathname: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request({ ...base, path: pathname, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  ctx = await createTestContext({ WEB_DIST_DIR: dist });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = { host: '127.0.0.1', port: (ctx.app.server.address() as AddressInfo).port };
});
afterAll(() => ctx.close());

describe('the built console over a real socket', () => {
  it('sends hashed chunks pre-compressed, cached for a year as immutable, varying on Accept-Encoding', async () => {
    const br = await get('/assets/login-page-AbC123xy.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(br.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(brotliDecompressSync(br.body).toString()).toBe(chunk);

    const gz = await get('/assets/login-page-AbC123xy.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(chunk);

    const plain = await get('/assets/login-page-AbC123xy.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(chunk);
  });

  it('answers history-mode paths with index.html that is revalidated every time', async () => {
    for (const pathname of ['/auth/login', '/marketplace/abc', '/']) {
      const res = await get(pathname, { 'accept-encoding': 'gzip, br' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
  });

  it('paints the shell bar in a signed-in screen before its scripts run, the same page in every encoding', async () => {
    const withBar = '<div id="root"><div aria-hidden="true">POI Cloud</div></div>';
    const billing = await get('/billing', { 'accept-encoding': 'gzip, deflate, br' });
    expect(billing.headers['content-encoding']).toBe('br');
    expect(String(billing.headers.vary).toLowerCase()).toContain('accept-encoding');
    const billingHtml = brotliDecompressSync(billing.body).toString();
    expect(billingHtml).toBe(indexHtml.replace('<div id="root"></div>', withBar));
    expect(gunzipSync((await get('/billing/', { 'accept-encoding': 'gzip' })).body).toString()).toBe(billingHtml);
    expect((await get('/billing', { 'accept-encoding': 'br;q=0, identity' })).body.toString()).toBe(billingHtml);
    expect((await get('/marketplace/0b5e7f2a-1234?tab=map')).body.toString()).toBe(billingHtml);
    // Guest screens, paths outside the table and deeper ones: index.html as built.
    for (const other of ['/auth/login', '/marketplace/a/b', '/nowhere', '/billingx']) expect((await get(other)).body.toString()).toBe(indexHtml);
  });

  it('gives a missing chunk a JSON 404, not index.html', async () => {
    const res = await get('/assets/gone-XyZ987.js', { 'accept-encoding': 'br' });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
