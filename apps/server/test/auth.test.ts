import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, codeOf, createTestContext, magicTokenOf, requestCode, signIn, uniqueEmail, verifyCode, type TestContext } from './helpers';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

const waitForMailCount = async (email: string, n: number) => {
  const deadline = Date.now() + 5000;
  while (ctx.mailbox.count(email) < n) {
    if (Date.now() > deadline) throw new Error('mail did not arrive');
    await new Promise((r) => setTimeout(r, 20));
  }
  return ctx.mailbox.latest(email);
};

/** Moves the address's challenges back in time, as if the given seconds had passed. */
const age = (email: string, seconds: number) =>
  ctx.query(
    `UPDATE auth_challenges SET created_at = created_at - make_interval(secs => $2), expires_at = expires_at - make_interval(secs => $2) WHERE email = $1`,
    [email, seconds],
  );

describe('POST /console/v1/auth/request-otp', () => {
  it('mails one message with the code, the magic link and the 10-minute expiry, in Japanese', async () => {
    const email = uniqueEmail();
    const res = await requestCode(ctx, email);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: '認証コードを送信しました。メールをご確認ください。', resend_after: 60 });
    const mail = await waitForMailCount(email, 1);
    expect(mail.subject).toBe('【POI Cloud】ログイン用の認証コード');
    expect(codeOf(mail)).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(`http://console.test/auth/magic/${magicTokenOf(mail)}`);
    expect(mail.text).toContain('有効期限は10分');
    expect(mail.html).toContain(codeOf(mail));
    expect(mail.html).toContain(magicTokenOf(mail));
  });

  it('answers a known and an unknown address identically (no enumeration)', async () => {
    const known = uniqueEmail('known');
    await signIn(ctx, known);
    await age(known, 61);
    const a = await requestCode(ctx, known);
    const b = await requestCode(ctx, uniqueEmail('unknown'));
    expect(a.statusCode).toBe(b.statusCode);
    expect(a.json()).toEqual(b.json());
  });

  it('normalises the address (trim, lower case) before anything else', async () => {
    const email = uniqueEmail('Case');
    const res = await requestCode(ctx, `  ${email.toUpperCase()} `);
    expect(res.statusCode).toBe(200);
    await waitForMailCount(email.toLowerCase(), 1);
  });

  it.each([
    [{}, 'メールアドレスを入力してください'],
    [{ email: '' }, 'メールアドレスを入力してください'],
    [{ email: 'not-an-address' }, '有効なメールアドレスを入力してください'],
    [{ email: 'a@b' }, '有効なメールアドレスを入力してください'],
  ])('rejects %j with 400 and a Japanese message', async (payload, message) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/request-otp', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message } });
  });

  it('rejects a malformed JSON body with 400, not 500', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/console/v1/auth/request-otp',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BAD_REQUEST', message: 'リクエストのJSONの形式が正しくありません' });
  });

  it('allows one mail per address per 60 s and answers 429 with Retry-After', async () => {
    const email = uniqueEmail();
    expect((await requestCode(ctx, email)).statusCode).toBe(200);
    const again = await requestCode(ctx, email);
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(55);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(again.json().error.message).toMatch(/^認証コードの再送信は\d+秒後に可能です$/);
    expect(ctx.mailbox.count(email)).toBe(1);
    await age(email, 61);
    expect((await requestCode(ctx, email)).statusCode).toBe(200);
  });

  it('allows 5 mails per address per hour', async () => {
    const email = uniqueEmail();
    for (let i = 0; i < 5; i++) {
      expect((await requestCode(ctx, email)).statusCode).toBe(200);
      await age(email, 61);
    }
    const sixth = await requestCode(ctx, email);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().error.message).toBe('認証コードのリクエスト回数が上限に達しました。しばらくしてから再度お試しください');
    // The oldest of the five was 5 × 61 s ago: it leaves the hour in 3600 − 305 s.
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(3200);
    expect(Number(sixth.headers['retry-after'])).toBeLessThanOrEqual(3600 - 305 + 1);
  });

  it('serialises concurrent requests for one address: exactly one mail', async () => {
    const email = uniqueEmail();
    const results = await Promise.all(Array.from({ length: 5 }, () => requestCode(ctx, email)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 429, 429, 429, 429]);
    await waitForMailCount(email, 1);
    const rows = await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM auth_challenges WHERE email = $1', [email]);
    expect(rows[0]!.n).toBe(1);
  });

  it('puts only same-site redirects into the magic link', async () => {
    const safe = uniqueEmail();
    await requestCode(ctx, safe, { redirect: '/marketplace?type=paid' });
    expect((await waitForMailCount(safe, 1)).text).toContain('?redirect=%2Fmarketplace%3Ftype%3Dpaid');
    for (const redirect of ['//evil.example', 'https://evil.example/', '/\\evil.example']) {
      const email = uniqueEmail();
      await requestCode(ctx, email, { redirect });
      expect((await waitForMailCount(email, 1)).text).not.toContain('redirect=');
    }
  });
});

describe('POST /console/v1/auth/verify-otp', () => {
  it('signs a new address in as a trial user and answers success, token, user, message', async () => {
    const email = uniqueEmail('new');
    await requestCode(ctx, email);
    const res = await verifyCode(ctx, email, codeOf(await waitForMailCount(email, 1)));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, message: 'ログインしました', user: { email, role: 'user', account_type: 'trial', display_name: null } });
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await ctx.app.inject({ method: 'GET', url: '/console/v1/user', headers: bearer(body.token) });
    expect(me.json()).toEqual({ success: true, user: body.user });
  });

  it('stores codes, links and sessions only as hashes', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const mail = await waitForMailCount(email, 1);
    const code = codeOf(mail);
    const token = magicTokenOf(mail);
    const challenge = (await ctx.query<Record<string, string>>('SELECT * FROM auth_challenges WHERE email = $1', [email]))[0]!;
    const stored = JSON.stringify(challenge);
    expect(stored).not.toContain(token);
    expect(challenge.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(challenge.code_hash).not.toContain(code);
    expect(challenge.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const login = (await verifyCode(ctx, email, code)).json();
    const sessions = await ctx.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE user_id = $1', [login.user.id]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.token_hash).toBe(createHash('sha256').update(login.token).digest('hex'));
  });

  it('accepts a code once only', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const code = codeOf(await waitForMailCount(email, 1));
    expect((await verifyCode(ctx, email, code)).statusCode).toBe(200);
    const again = await verifyCode(ctx, email, code);
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toBe('認証コードが正しくないか、有効期限が切れています');
  });

  it('refuses a code after its 10 minutes', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const code = codeOf(await waitForMailCount(email, 1));
    await age(email, 10 * 60 + 1);
    const res = await verifyCode(ctx, email, code);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('認証コードが正しくないか、有効期限が切れています');
  });

  it('kills the challenge after 5 wrong codes, even for the right one', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const mail = await waitForMailCount(email, 1);
    const code = codeOf(mail);
    const wrong = code === '000000' ? '111111' : '000000';
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push((await verifyCode(ctx, email, wrong)).json().error.message);
    expect(answers.slice(0, 4)).toEqual(Array(4).fill('認証コードが正しくないか、有効期限が切れています'));
    expect(answers[4]).toBe('認証コードの入力回数が上限に達しました。新しいコードをリクエストしてください');
    const right = await verifyCode(ctx, email, code);
    expect(right.statusCode).toBe(400);
    expect(right.json().error.message).toBe('認証コードの入力回数が上限に達しました。新しいコードをリクエストしてください');
    const link = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${magicTokenOf(mail)}` });
    expect(link.statusCode).toBe(400);
  });

  it('accepts only the newest challenge of an address', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const first = await waitForMailCount(email, 1);
    await age(email, 61);
    await requestCode(ctx, email);
    const second = await waitForMailCount(email, 2);
    expect((await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${magicTokenOf(first)}` })).statusCode).toBe(400);
    if (codeOf(first) !== codeOf(second)) expect((await verifyCode(ctx, email, codeOf(first))).statusCode).toBe(400);
    expect((await verifyCode(ctx, email, codeOf(second))).statusCode).toBe(200);
  });

  it('answers 400 (never 401) for an address that never asked for a code', async () => {
    const res = await verifyCode(ctx, uniqueEmail('never'), '123456');
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['', '認証コードを入力してください'],
    ['12345', '6桁の認証コードを入力してください'],
    ['12a456', '認証コードは数字のみで入力してください'],
  ])('validates the code %j', async (code, message) => {
    const res = await verifyCode(ctx, uniqueEmail(), code);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
  });

  it('makes ADMIN_EMAILS addresses admins and platform admins', async () => {
    const { user } = await signIn(ctx, 'admin@example.com');
    expect(user).toMatchObject({ role: 'admin', account_type: 'platform_admin' });
  });
});

describe('magic link: opening it consumes nothing', () => {
  /** Every GET a mail scanner, a link prefetcher or the user's browser makes of the link. */
  const openEverything = async (token: string) => {
    for (const url of [
      `/auth/magic/${token}`,
      `/auth/magic/${token}?redirect=%2Fusage`,
      `/auth/magic/${token}/`,
      `/console/v1/auth/magic/${token}`,
      `/console/v1/auth/magic/${token}`,
      `/console/v1/auth/magic/${token}?redirect=%2Fusage`,
      `/console/v1/auth/magic/${token}/confirm`,
    ]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await ctx.app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).not.toBe(200);
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    }
  };

  it('a GET of anything under the link leaves the code working', async () => {
    const email = uniqueEmail('scanned-code');
    await requestCode(ctx, email);
    const mail = await waitForMailCount(email, 1);
    await openEverything(magicTokenOf(mail));
    expect((await verifyCode(ctx, email, codeOf(mail))).statusCode).toBe(200);
  });

  it('a GET of anything under the link leaves the link working: only its POST signs in', async () => {
    const email = uniqueEmail('scanned-link');
    await requestCode(ctx, email);
    const token = magicTokenOf(await waitForMailCount(email, 1));
    await openEverything(token);
    const get = await ctx.app.inject({ method: 'GET', url: `/console/v1/auth/magic/${token}` });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.json().error.code).toBe('METHOD_NOT_ALLOWED');
    const res = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, user: { email } });
  });
});

describe('POST /console/v1/auth/magic/{token}', () => {
  it('signs in once with the link and answers the login response', async () => {
    const email = uniqueEmail('magic');
    await requestCode(ctx, email);
    const token = magicTokenOf(await waitForMailCount(email, 1));
    const res = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: 'ログインしました', user: { email, account_type: 'trial' } });
    expect(res.headers['cache-control']).toBe('no-store');
    const again = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toBe('リンクが無効または期限切れです。もう一度ログインしてください');
  });

  it('uses up the code too: the link and the code are one challenge', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const mail = await waitForMailCount(email, 1);
    expect((await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${magicTokenOf(mail)}` })).statusCode).toBe(200);
    expect((await verifyCode(ctx, email, codeOf(mail))).statusCode).toBe(400);
  });

  it('refuses an expired link', async () => {
    const email = uniqueEmail();
    await requestCode(ctx, email);
    const token = magicTokenOf(await waitForMailCount(email, 1));
    await age(email, 601);
    expect((await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` })).statusCode).toBe(400);
  });

  it('rejects a token that is not 64 of [a-z0-9] with the spec text', async () => {
    for (const token of ['abc', 'A'.repeat(64), 'a'.repeat(65)]) {
      const res = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${token}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toBe('マジックリンクのトークンが無効です。');
    }
    const unknown = await ctx.app.inject({ method: 'POST', url: `/console/v1/auth/magic/${'a'.repeat(64)}` });
    expect(unknown.statusCode).toBe(400);
  });
});

describe('per-IP limits', () => {
  it('answers 429 with Retry-After past AUTH_IP_LIMIT requests per 10 minutes', async () => {
    const limited = await createTestContext({ AUTH_IP_LIMIT: '3' });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await requestCode(limited, uniqueEmail());
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(500);
      expect(last!.json().error).toMatchObject({ code: 'RATE_LIMITED', message: 'リクエストが多すぎます。しばらくしてから再度お試しください' });
      // Verification has its own budget per IP, so guessing codes is bounded too.
      const guesses: number[] = [];
      for (let i = 0; i < 4; i++) guesses.push((await verifyCode(limited, uniqueEmail(), '123456')).statusCode);
      expect(guesses).toEqual([400, 400, 400, 429]);
    } finally {
      await limited.close();
    }
  });
});
