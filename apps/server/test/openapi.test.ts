import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import type { OpenAPI } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './helpers';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});

afterAll(async () => {
  await ctx?.close();
});

describe('OpenAPI document', () => {
  it('validates as OpenAPI 3 and documents the public search completely', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    // The validator dereferences in place: it gets a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as OpenAPI.Document)).resolves.toBeTruthy();

    const search = doc.paths['/api/v1/poi/search'].get;
    const params = Object.fromEntries(search.parameters.map((p: { name: string }) => [p.name, p]));
    expect(params.dataset_id).toMatchObject({ required: true, schema: { minItems: 1, maxItems: 10 } });
    expect(params.dataset_id.schema.description ?? params.dataset_id.description).toContain('データセット');
    expect(params.latitude.schema).toMatchObject({ minimum: -90, maximum: 90 });
    expect(params.radius.schema).toMatchObject({ minimum: 1, maximum: 50000 });
    expect(params.limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(params.keyword.schema).toMatchObject({ maxLength: 100 });
    expect(Object.keys(search.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '405', '429', '503']);
    // Declared headers and a sample answer per case.
    expect(Object.keys(search.responses['200'].headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(Object.keys(search.responses['429'].headers)).toContain('Retry-After');
    for (const status of Object.keys(search.responses)) expect(Object.keys(search.responses[status].content['application/json'].examples ?? {}).length, status).toBeGreaterThan(0);
    expect(params.cursor.description).toContain('next_cursor');
    expect(search.responses['402'].description).toMatch(/^PAYMENT_REQUIRED: /);
    const pois = search.responses['200'].content['application/json'].schema.properties.data.properties.pois;
    expect(Object.keys(pois.items.properties)).toEqual(expect.arrayContaining(['poi_id', 'name', 'latitude', 'longitude', 'distance_m']));
    expect(search.operationId).toBe('searchPois');
    expect(search.security).toEqual([{ apiKeyHeader: [] }, { apiKeyBearer: [] }]);
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.apiKeyBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('declares the errors, security and bodies of every console operation', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    await expect(SwaggerParser.validate(structuredClone(doc) as OpenAPI.Document)).resolves.toBeTruthy();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });

    type Operation = { responses: Record<string, { description: string; content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>; security?: unknown[]; requestBody?: { content: Record<string, { schema: { required?: string[]; properties: Record<string, { format?: string }> } }> } };
    const console = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
      .filter(([path]) => path.startsWith('/console/v1/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
    expect(console.length).toBeGreaterThanOrEqual(30);
    const signIn = new Set(['POST /console/v1/auth/request-otp', 'POST /console/v1/auth/verify-otp', 'POST /console/v1/auth/magic/{token}', 'POST /console/v1/logs/frontend', 'GET /console/v1/commerce']);
    for (const { name, op } of console) {
      const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(errors, name).toContain('500');
      for (const status of errors) {
        const schema = op.responses[status]!.content!['application/json']!.schema;
        expect(Object.keys(schema.properties ?? {}), `${name} ${status}`).toEqual(['success', 'error', 'errors']);
        expect(op.responses[status]!.description, `${name} ${status}`).toMatch(/^[A-Z_ /]+: /);
      }
      if (signIn.has(name)) {
        expect(op.security, name).toEqual([]);
      } else {
        expect(op.security, name).toEqual([{ bearerAuth: [] }]);
        expect(errors, name).toContain('401');
      }
      if (op.requestBody) expect(errors, name).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
    const op = (name: string) => console.find((o) => o.name === name)!.op;
    expect(Object.keys(op('GET /console/v1/admin/users').responses)).toContain('403');
    expect(Object.keys(op('POST /console/v1/api-keys').responses)).toContain('409');
    expect(Object.keys(op('GET /console/v1/datasets/{id}').responses)).toContain('404');
    expect(Object.keys(op('POST /console/v1/auth/request-otp').responses)).toEqual(expect.arrayContaining(['429', '503']));

    const upload = op('POST /console/v1/poi/bulk-import').requestBody!.content['multipart/form-data']!.schema;
    expect(upload.required?.sort()).toEqual(['dataset_id', 'file', 'format']);
    expect(upload.properties.file!.format).toBe('binary');

    expect(op('POST /console/v1/api-keys').requestBody!.content['application/json']!.schema.required).toEqual(['name']);
    const usage = op('GET /console/v1/usage/summary') as unknown as { parameters: Array<{ name: string; required?: boolean }> };
    expect(usage.parameters.find((p) => p.name === 'year_month')?.required).toBeFalsy();

    const exportOp = op('GET /console/v1/datasets/{id}/export');
    expect(Object.keys(exportOp.responses['200']!.content!)).toEqual(['text/csv', 'application/geo+json']);
  });

  it("passes Redocly's recommended rules with no error (redocly.yaml lists the warnings left and why)", async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    const config = await loadConfig({ configPath: fileURLToPath(new URL('../../../redocly.yaml', import.meta.url)) });
    const problems = await lintFromString({ source: res.body, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('names every operation uniquely and declares its security, [] where no credential is needed', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string; security?: Array<Record<string, string[]>> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
    const ids = operations.map(({ op }) => op.operationId);
    for (const { name, op } of operations) {
      expect(op.operationId, name).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(Array.isArray(op.security), name).toBe(true);
      for (const requirement of op.security!) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, `${name} ${scheme}`).toHaveProperty(scheme);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Names come from the method and the served path (or the override table): stable when a route moves.
    const id = (name: string) => operations.find((o) => o.name === name)?.op.operationId;
    expect(id('GET /console/v1/admin/users')).toBe('adminListUsers');
    expect(id('GET /console/v1/datasets/{id}')).toBe('getDataset');
    expect(id('POST /console/v1/api-keys/{id}/revoke')).toBe('revokeApiKey');
    expect(id('GET /console/v1/admin/users.csv')).toBe('adminExportUsersCsv');
    const publicOps = ['GET /healthz', 'POST /console/v1/auth/request-otp', 'POST /console/v1/auth/verify-otp', 'POST /console/v1/auth/magic/{token}', 'GET /console/v1/commerce', 'POST /console/v1/logs/frontend'];
    for (const name of publicOps) expect(operations.find((o) => o.name === name)?.op.security, name).toEqual([]);
    expect(operations.find((o) => o.name === 'GET /console/v1/admin/users')?.op.security).toEqual([{ bearerAuth: [] }]);
  });

  it('has no schema with nullable but no type (OpenAPI 3.0 gives nullable meaning only beside a type)', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const found: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const object = node as Record<string, unknown>;
      if ('nullable' in object && typeof object.nullable === 'boolean' && object.type === undefined) found.push(at);
      for (const [key, value] of Object.entries(object)) if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    expect(found).toEqual([]);
    // The audit rows' before/after stay documented (any JSON value, null included).
    const entry = doc.paths['/console/v1/admin/audit-logs'].get.responses['200'].content['application/json'].schema.properties.data.properties.entries.items;
    expect(entry.properties.before).toEqual({});
    expect(entry.required).toEqual(expect.arrayContaining(['before', 'after']));
  });
});
