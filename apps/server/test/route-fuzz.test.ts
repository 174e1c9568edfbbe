import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from './helpers';
import { startFakeStripe, type FakeStripe } from './support/fake-stripe';

/*
 * Every write route of the OpenAPI document, sent malformed bodies, queries, path
 * parameters and multipart by a signed-in user, answers below 500. Bounded (a fixed seed and a
 * run count per route) so the file stays well under 20 s; a failure prints the route and input.
 */

let ctx: TestContext;
let fake: FakeStripe;
let admin: string;
let provider: string;
let datasetId: string;

type Operation = { requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> }; parameters?: Array<{ in: string; name: string }> };
type Route = { method: 'POST' | 'PATCH' | 'PUT'; path: string; op: Operation };

/** Runs per route and the seed: fixed for CI; FUZZ_RUNS / FUZZ_SEED explore further by hand. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 30);

/** Routes a fuzzed call would make useless for the rest of the run (the session itself). */
const SKIPPED = new Set(['POST /console/v1/auth/logout']);

const weirdString = fc.oneof(
  fc.constantFrom('', ' ', 'x', '\ud800', 'a\udc00b', '\u0000', '　', '１２３', '-1', '1e309', 'NaN', 'null', '[]', '{}', '../../etc', '%ZZ', 'あ'.repeat(300), '00000000-0000-4000-8000-000000000000'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const weirdValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    weirdString,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(weirdString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** The body fields a route documents, each given an odd value (some left out, some extra). */
const shapedBody = (route: Route) => {
  const props = Object.keys(Object.values(route.op.requestBody?.content ?? {})[0]?.schema?.properties ?? {});
  return fc.tuple(fc.subarray(props), fc.array(weirdValue, { minLength: props.length, maxLength: props.length }), fc.dictionary(weirdString, weirdValue, { maxKeys: 2 })).map(([keys, values, extra]) => {
    const body: Record<string, unknown> = { ...extra };
    keys.forEach((k) => (body[k] = values[props.indexOf(k)]));
    return JSON.stringify(body);
  });
};

const rawBody = fc.oneof(
  fc.constantFrom('', 'null', '[]', '[1,2,3]', '"x"', '{', '{"a":', '{"name":"\\ud800"}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', `${'['.repeat(5000)}${']'.repeat(5000)}`, `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`),
  weirdValue.map((v) => JSON.stringify(v) ?? 'null'),
);

const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=zz', undefined);

const multipartBody = fc
  .tuple(fc.constantFrom('b1', 'zz', 'other'), fc.dictionary(fc.constantFrom('dataset_id', 'format', 'mode', 'file', 'x'), weirdString, { maxKeys: 4 }), fc.nat({ max: 400 }), fc.boolean())
  .map(([boundary, fields, cut, withFile]) => {
    let body = Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('');
    if (withFile) body += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.csv"\r\nContent-Type: text/csv\r\n\r\nname,latitude,longitude\n店,35,139\r\n`;
    body += `--${boundary}--\r\n`;
    const bytes = Buffer.from(body);
    return { type: `multipart/form-data; boundary=b1`, payload: bytes.subarray(0, Math.max(0, bytes.length - cut)) };
  });

const pathValue = fc.oneof(fc.constantFrom('00000000-0000-4000-8000-000000000000', 'x', '%ED%A0%80', '%00', '..', 'a'.repeat(300), '%E3%81', '-1'), fc.uuid(), fc.constant(''));
const query = fc.oneof(fc.constant(''), fc.dictionary(fc.constantFrom('limit', 'offset', 'dataset_id', 'x', 'format'), weirdString, { maxKeys: 3 }).map((q) => new URLSearchParams(q as Record<string, string>).toString()));

function pathOf(route: Route, values: string[]): string {
  let i = 0;
  return route.path.replace(/\{[^}]+\}/g, () => {
    const v = values[i++ % values.length] ?? 'x';
    return v === '' ? datasetId : v;
  });
}

beforeAll(async () => {
  fake = await startFakeStripe();
  ctx = await createTestContext({ ...fake.env(), BILLING_JOBS: 'off', AUTH_IP_LIMIT: '100000' });
  admin = (await ctx.admin()).token;
  provider = (await ctx.newProvider('fuzz')).token;
  datasetId = await ctx.newDataset(provider, { name: 'fuzz' });
});

afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

describe('fuzzed write routes', () => {
  it('never answer 5xx, as an administrator or a data provider', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const routes: Route[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => ['post', 'patch', 'put'].includes(method))
        .map(([method, op]) => ({ method: method.toUpperCase() as Route['method'], path, op }))
        .filter((r) => !SKIPPED.has(`${r.method} ${r.path}`)),
    );
    expect(routes.length).toBeGreaterThan(30);
    const started = Date.now();
    let requests = 0;
    const serverErrors: string[] = [];
    for (const route of routes) {
      const isMultipart = Boolean(route.op.requestBody?.content['multipart/form-data']);
      const input = fc.record({
        who: fc.constantFrom(admin, provider),
        path: fc.array(pathValue, { minLength: 1, maxLength: 2 }),
        query,
        body: isMultipart
          ? fc.oneof(multipartBody, rawBody.map((payload) => ({ type: 'application/json', payload: Buffer.from(payload) })))
          : fc.oneof(
              shapedBody(route).map((payload) => ({ type: 'application/json' as string | undefined, payload: Buffer.from(payload) })),
              fc.tuple(contentType, rawBody).map(([type, payload]) => ({ type, payload: Buffer.from(payload) })),
            ),
      });
      await fc.assert(
        fc.asyncProperty(input, async ({ who, path, query: q, body }) => {
          const url = `${pathOf(route, path)}${q ? `?${q}` : ''}`;
          const res = await ctx.app.inject({ method: route.method, url, headers: { ...bearer(who), ...(body.type ? { 'content-type': body.type } : {}) }, payload: body.payload });
          requests += 1;
          if (res.statusCode >= 500) serverErrors.push(`${route.method} ${url} ${body.type} ${body.payload.subarray(0, 200).toString()} → ${res.statusCode} ${res.body.slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    console.warn(`route fuzz: ${routes.length} routes, ${requests} requests, ${serverErrors.length} answers ≥ 500, ${Date.now() - started} ms`);
    expect(serverErrors).toEqual([]);
  }, 60_000);
});
