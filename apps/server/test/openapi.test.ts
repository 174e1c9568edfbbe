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
});
