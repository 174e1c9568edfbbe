import { readFileSync } from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../apps/server/test/helpers';
import { publicDocument, SCHEMA_FILE, schemaSource } from '../scripts/schema-source';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});

afterAll(async () => {
  await ctx?.close();
});

describe('the SDK\'s generated types', () => {
  it('are those of the server\'s OpenAPI document as it is now (else: npm run sdk:generate)', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenAPI3;
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed === (await schemaSource(doc)), 'packages/sdk/src/schema.d.ts is out of date with the server: run `npm run sdk:generate` and commit it').toBe(true);
  });

  it('cover every public path and no console path', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenAPI3;
    const publicPaths = Object.keys(doc.paths ?? {}).filter((p) => p.startsWith('/api/v1/'));
    expect(publicPaths).toContain('/api/v1/poi/search');
    expect(Object.keys(publicDocument(doc).paths ?? {})).toEqual(publicPaths);
    const source = await schemaSource(doc);
    for (const path of publicPaths) expect(source).toContain(`"${path}": {`);
    expect(source).not.toContain('/console/v1/');
  });
});
