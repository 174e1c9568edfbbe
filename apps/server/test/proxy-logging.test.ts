import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog, createTestContext, magicTokenOf, uniqueEmail, type TestContext } from './helpers';

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
});
