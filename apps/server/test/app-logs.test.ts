import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, signIn, uniqueEmail, type TestContext } from './helpers';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

describe('app', () => {
  it('answers /healthz with the database engine', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      database: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite',
      redis: 'not_configured',
      search_backfill: { running: expect.any(Boolean), rewritten: 0, per_second: null },
      // lag_ms is null until the first read of the change log, a number after it.
      search_index: expect.objectContaining({
        enabled: true,
        datasets_ready: expect.any(Number),
        datasets_building: expect.any(Number),
        datasets_over_budget: 0,
        pois: expect.any(Number),
        memory_mb: expect.any(Number),
        budget_mb: 1024,
        served: 0,
      }),
    });
  });

  it('echoes a request id and sets the security headers', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-12345678' } });
    expect(res.headers['x-request-id']).toBe('req-12345678');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // The whole set, on a console answer, a public API answer and an error: recorded once at
    // start-up (plugins/security-headers.ts), as @fastify/helmet wrote them per request before.
    const security = {
      'content-security-policy':
        "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data: blob: https:;font-src 'self' data:;connect-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'",
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    for (const url of ['/healthz', '/console/v1/datasets', '/api/v1/poi/search?dataset_id=x', '/api/v1/nothing']) {
      const answer = await ctx.app.inject({ method: 'GET', url });
      expect(answer.headers, url).toMatchObject(security);
      expect(answer.headers['x-powered-by'], url).toBeUndefined();
    }
    const generated = await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown API paths with a JSON 404 in Japanese', async () => {
    for (const url of ['/console/v1/nothing', '/api/v1/nothing', '/assets/missing.js']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: 'お探しのリソースが見つかりません' } });
    }
  });

  it('publishes an OpenAPI 3 document of every console route', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of ['/console/v1/auth/request-otp', '/console/v1/auth/verify-otp', '/console/v1/auth/magic/{token}', '/console/v1/auth/logout', '/console/v1/user', '/console/v1/logs/frontend']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });
});

describe('POST /console/v1/logs/frontend', () => {
  const payload = {
    type: 'api_error',
    message: 'Request failed with status code 400',
    endpoint: '/console/v1/auth/verify-otp',
    method: 'POST',
    status: 400,
    statusText: 'Bad Request',
    requestBody: JSON.stringify({ email: 'a@example.com', code: '123456' }),
    responseBody: { success: false, token: 'secret-token' },
    timestamp: new Date().toISOString(),
    url: 'http://localhost:8080/auth/verify-otp?email=a%40example.com',
    userId: null,
    hasAuthToken: false,
    browserInfo: { userAgent: 'test', language: 'ja', platform: 'Linux', screenWidth: 1280, screenHeight: 800, windowWidth: 1280, windowHeight: 700 },
  };

  it('stores the log with codes and tokens redacted, linked to the user when signed in', async () => {
    const { token, user } = await signIn(ctx, uniqueEmail());
    const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/logs/frontend', headers: bearer(token), payload });
    expect(res.statusCode).toBe(200);
    const rows = await ctx.query<{ payload: unknown; user_id: string; status: number }>('SELECT payload, user_id, status FROM frontend_logs WHERE user_id = $1', [user.id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]!.payload);
    expect(stored).not.toContain('123456');
    expect(stored).not.toContain('secret-token');
    expect(stored).toContain('[REDACTED]');
    expect(rows[0]!.status).toBe(400);
  });

  it('accepts logs without a session (they often follow a 401)', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/logs/frontend', headers: bearer('expired-token-xxxxxxxxxxxx'), payload });
    expect(res.statusCode).toBe(200);
  });

  it('rejects a body over 16 KB with 413 and an invalid one with 400', async () => {
    const big = await ctx.app.inject({ method: 'POST', url: '/console/v1/logs/frontend', payload: { ...payload, responseBody: 'x'.repeat(17 * 1024) } });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    const bad = await ctx.app.inject({ method: 'POST', url: '/console/v1/logs/frontend', payload: { message: 'no type' } });
    expect(bad.statusCode).toBe(400);
  });

  it('deletes logs older than 30 days', async () => {
    await ctx.query("INSERT INTO frontend_logs (type, payload, created_at) VALUES ('old', '{}', now() - interval '31 days')");
    await ctx.app.close().catch(() => {});
    // Housekeeping runs at start-up: a fresh app over the same database removes the old row.
    const { buildApp } = await import('../src/app');
    const again = await buildApp(ctx.app.config, { database: ctx.database });
    await again.ready();
    const rows = await ctx.query<{ n: number }>("SELECT count(*)::int AS n FROM frontend_logs WHERE type = 'old'");
    expect(rows[0]!.n).toBe(0);
    ctx.app = again;
  });
});

describe('log rate limit', () => {
  it('accepts 60 logs a minute per IP, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/logs/frontend', payload: { type: 'api_error' }, remoteAddress: '10.0.0.9' });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
  });
});
