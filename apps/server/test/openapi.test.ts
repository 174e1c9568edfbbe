import SwaggerParser from '@apidevtools/swagger-parser';
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
    // Declared headers and a sample answer per case (issue 18).
    expect(Object.keys(search.responses['200'].headers)).toEqual(expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    expect(Object.keys(search.responses['429'].headers)).toContain('Retry-After');
    for (const status of Object.keys(search.responses)) expect(Object.keys(search.responses[status].content['application/json'].examples ?? {}).length, status).toBeGreaterThan(0);
    expect(params.cursor.description).toContain('next_cursor');
    expect(search.responses['402'].description).toMatch(/^PAYMENT_REQUIRED: /);
    const pois = search.responses['200'].content['application/json'].schema.properties.data.properties.pois;
    expect(Object.keys(pois.items.properties)).toEqual(expect.arrayContaining(['poi_id', 'name', 'latitude', 'longitude', 'distance_m']));
    expect(search.security).toEqual([{ apiKeyHeader: [] }, { bearerAuth: [] }]);
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
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
        expect(op.security, name).toBeUndefined();
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
});

