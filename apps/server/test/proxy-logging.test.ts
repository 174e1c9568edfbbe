import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, captureLog, createTestContext, magicTokenOf, uniqueEmail, type TestContext } from './helpers';

/** Sign-in verifications from one client address (as the server sees it) until the IP limit answers 429. */
async function verifyStatuses(ctx: TestContext, count: number, forwardedFor: (i: number) => string) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/console/v1/auth/verify-otp',
      remoteAddress: '10.1.2.3',
      headers: { 'x-forwarded-for': forwardedFor(i) },
      payload: { email: uniqueEmail(), code: '000000' },
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, every client behind one address shares its limit', async () => {
    const ctx = await createTestContext({ AUTH_IP_LIMIT: '2' });
    try {
      expect(await verifyStatuses(ctx, 3, (i) => `203.0.113.${i + 1}`)).toEqual([400, 400, 429]);
    } finally {
      await ctx.close();
    }
  });

  it('set (hops or the proxy\'s CIDR): limits key on the client address the proxy reports', async () => {
    for (const trust of ['1', '10.0.0.0/8']) {
      const ctx = await createTestContext({ AUTH_IP_LIMIT: '2', TRUST_PROXY: trust });
      try {
        expect(await verifyStatuses(ctx, 4, (i) => `203.0.113.${i + 1}`), trust).toEqual([400, 400, 400, 400]);
        expect(await verifyStatuses(ctx, 3, () => '198.51.100.7'), trust).toEqual([400, 400, 429]);
        // A client cannot pick its address by prepending its own X-Forwarded-For entry.
        expect(await verifyStatuses(ctx, 1, () => '192.0.2.1, 198.51.100.7'), trust).toEqual([429]);
      } finally {
        await ctx.close();
      }
    }
  });

  it('a proxy not in the list is not believed', async () => {
    const ctx = await createTestContext({ AUTH_IP_LIMIT: '2', TRUST_PROXY: '192.168.0.0/16' });
    try {
      expect(await verifyStatuses(ctx, 3, (i) => `203.0.113.${i + 1}`)).toEqual([400, 400, 429]);
    } finally {
      await ctx.close();
    }
  });
});

describe('request logs', () => {
  const log = captureLog();
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'info' }, { logStream: log.stream });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('never hold a magic-link token or a code: the URL path of magic-link routes is redacted', async () => {
    const email = uniqueEmail('log');
    await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/request-otp', payload: { email } });
    const mail = await ctx.mailbox.latest(email);
    const token = magicTokenOf(mail);
    const code = /認証コード: (\d{6})/.exec(mail.text)![1]!;
    const res = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` });
    expect(res.statusCode).toBe(200);
    // The console page the mail opens, and a URL with the code in its query.
    await ctx.app.inject({ method: 'GET', url: `/auth/magic/${token}?redirect=%2Fusage` });
    await ctx.app.inject({ method: 'GET', url: `/auth/verify-otp?email=${encodeURIComponent(email)}&code=${code}` });
    await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/verify-otp', payload: { email, code } });

    const urls = log.lines.filter((l) => l.msg === 'incoming request').map((l) => (l.req as { url: string }).url);
    expect(urls).toEqual(
      expect.arrayContaining(['/console/v1/auth/magic/[REDACTED]', '/auth/magic/[REDACTED]?redirect=%2Fusage', `/auth/verify-otp?email=${encodeURIComponent(email)}&code=[REDACTED]`]),
    );
    const everything = log.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(`code=${code}`);
  });

  it('leave out the public API\'s 200s; its other answers write one line with the request, the console two as before', async () => {
    const consumer = await ctx.newUser('individual', 'logs');
    const created = await ctx.api('POST', '/api-keys', consumer, { name: 'ログ' });
    expect(created.statusCode, created.body).toBe(200);
    const key = created.json().data.key as string;
    const dataset = await ctx.newDataset(await ctx.newProvider('logs-provider'));
    const call = async (url: string, headers: Record<string, string> = {}) => {
      const id = `log-check-${Math.random().toString(36).slice(2, 12)}`;
      const res = await ctx.app.inject({ method: 'GET', url, headers: { 'x-request-id': id, ...headers } });
      return { status: res.statusCode, lines: log.lines.filter((l) => l.reqId === id) };
    };
    const ok = await call(`/api/v1/poi/search?dataset_id=${dataset}&latitude=35.68&longitude=139.76`, { 'x-api-key': key });
    expect(ok.status).toBe(200);
    expect(ok.lines).toEqual([]);
    const refused = await call(`/api/v1/poi/search?dataset_id=${dataset}`);
    expect(refused.status).toBe(401);
    expect(refused.lines.map((l) => [l.msg, (l.res as { statusCode: number }).statusCode, (l.req as { url: string }).url])).toEqual([
      ['request completed', 401, `/api/v1/poi/search?dataset_id=${dataset}`],
    ]);
    const invalid = await call(`/api/v1/poi/search?dataset_id=${dataset}&latitude=91&longitude=0`, { 'x-api-key': key });
    expect(invalid.status).toBe(400);
    expect(invalid.lines.map((l) => l.msg)).toEqual(['request completed']);
    const consoleCall = await call('/console/v1/api-keys', bearer(consumer.token));
    expect(consoleCall.status).toBe(200);
    expect(consoleCall.lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });
});
