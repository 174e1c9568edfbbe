import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_CACHE_MS } from '../src/modules/auth/auth.service';
import { bearer, codeOf, createTestContext, requestCode, signIn, uniqueEmail, verifyCode, type TestContext } from './helpers';

let ctx: TestContext;
let admin: { token: string; user: { id: string } };
beforeAll(async () => {
  ctx = await createTestContext();
  admin = await signIn(ctx, 'admin@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

/** Runs the check with the clock moved past the lifetime of a cached session. */
async function afterSessionCache(check: () => Promise<void>) {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + SESSION_CACHE_MS + 1 });
  try {
    await check();
  } finally {
    vi.useRealTimers();
  }
}

const getUser = (token?: string) =>
  ctx.app.inject({ method: 'GET', url: '/console/v1/user', headers: token ? bearer(token) : {} });

describe('sessions', () => {
  it('answers 401 without a token and with an unknown one', async () => {
    const none = await getUser();
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toMatchObject({ code: 'UNAUTHORIZED', message: 'ログインが必要です' });
    const unknown = await getUser('x'.repeat(43));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.message).toBe('セッションの有効期限が切れました。再度ログインしてください');
  });

  it('revokes the session at logout, and only that session', async () => {
    const email = uniqueEmail();
    const a = await signIn(ctx, email);
    await ctx.query("UPDATE auth_challenges SET created_at = created_at - interval '61 seconds' WHERE email = $1", [email]);
    const b = await signIn(ctx, email);
    const out = await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/logout', headers: bearer(a.token) });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true, message: 'ログアウトしました' });
    expect((await getUser(a.token)).statusCode).toBe(401);
    expect((await getUser(b.token)).statusCode).toBe(200);
  });

  it('expires a session idle for 7 days', async () => {
    const { token, user } = await signIn(ctx, uniqueEmail());
    await ctx.query("UPDATE sessions SET last_used_at = now() - interval '7 days 1 minute' WHERE user_id = $1", [user.id]);
    expect((await getUser(token)).statusCode).toBe(401);
  });

  it('keeps an active session alive but ends it 30 days after sign-in', async () => {
    const { token, user } = await signIn(ctx, uniqueEmail());
    await ctx.query("UPDATE sessions SET last_used_at = now() - interval '6 days' WHERE user_id = $1", [user.id]);
    expect((await getUser(token)).statusCode).toBe(200);
    const touched = await ctx.query<{ recent: boolean }>("SELECT last_used_at > now() - interval '1 minute' AS recent FROM sessions WHERE user_id = $1", [user.id]);
    expect(touched[0]!.recent).toBe(true);
    await ctx.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [user.id]);
    // The session resolved a moment ago is reused for SESSION_CACHE_MS; past that the database decides.
    await afterSessionCache(async () => expect((await getUser(token)).statusCode).toBe(401));
  });

  it('reuses a resolved session briefly, but logout, suspension and user changes end it at once', async () => {
    const { token, user } = await signIn(ctx, uniqueEmail());
    expect((await getUser(token)).statusCode).toBe(200);
    // Written behind the server's back: the cached session still answers for a few seconds.
    await ctx.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [user.id]);
    expect((await getUser(token)).statusCode).toBe(200);
    await afterSessionCache(async () => expect((await getUser(token)).statusCode).toBe(401));

    const b = await signIn(ctx, uniqueEmail());
    expect((await getUser(b.token)).json().user.display_name).not.toBe('新しい名前');
    await ctx.app.inject({ method: 'PATCH', url: '/console/v1/user', headers: bearer(b.token), payload: { display_name: '新しい名前' } });
    expect((await getUser(b.token)).json().user.display_name).toBe('新しい名前');
    expect((await ctx.app.inject({ method: 'POST', url: `/console/v1/admin/users/${b.user.id}/change-type`, headers: bearer(admin.token), payload: { account_type: 'data_provider', reason: 'テスト' } })).statusCode).toBe(200);
    expect((await getUser(b.token)).json().user.account_type).toBe('data_provider');
    expect((await ctx.app.inject({ method: 'POST', url: `/console/v1/admin/users/${b.user.id}/suspend`, headers: bearer(admin.token), payload: { reason: 'テスト' } })).statusCode).toBe(200);
    expect((await getUser(b.token)).statusCode).toBe(401);
  });
});

describe('profile', () => {
  it('updates the display name, trimmed', async () => {
    const { token } = await signIn(ctx, uniqueEmail());
    const res = await ctx.app.inject({ method: 'PATCH', url: '/console/v1/user', headers: bearer(token), payload: { display_name: '  山田 太郎  ' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.display_name).toBe('山田 太郎');
    expect((await getUser(token)).json().user.display_name).toBe('山田 太郎');
  });

  it.each([
    [{ display_name: '   ' }, '表示名を入力してください'],
    [{ display_name: 'あ'.repeat(101) }, '表示名は100文字以内で入力してください'],
  ])('rejects %j', async (payload, message) => {
    const { token } = await signIn(ctx, uniqueEmail());
    const res = await ctx.app.inject({ method: 'PATCH', url: '/console/v1/user', headers: bearer(token), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
  });

  it('needs a session', async () => {
    const res = await ctx.app.inject({ method: 'PATCH', url: '/console/v1/user', payload: { display_name: 'x' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('admin users', () => {
  it('refuses guests (401) and non-admins (403)', async () => {
    const { token } = await signIn(ctx, uniqueEmail());
    expect((await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users' })).statusCode).toBe(401);
    const res = await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users', headers: bearer(token) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('この操作を行う権限がありません');
  });

  it('changes the account type and filters the list by it (the provider picker)', async () => {
    const { user } = await signIn(ctx, uniqueEmail('provider'));
    const change = await ctx.app.inject({
      method: 'POST',
      url: `/console/v1/admin/users/${user.id}/change-type`,
      headers: bearer(admin.token),
      payload: { account_type: 'data_provider', reason: 'テスト' },
    });
    expect(change.statusCode).toBe(200);
    expect(change.json().data.user.account_type).toBe('data_provider');
    const list = await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users?account_type=data_provider&limit=100', headers: bearer(admin.token) });
    expect(list.statusCode).toBe(200);
    const users = list.json().data.users as Array<{ id: string; account_type: string }>;
    expect(users.map((u) => u.id)).toContain(user.id);
    expect(users.every((u) => u.account_type === 'data_provider')).toBe(true);
  });

  it('validates ids, types and limits', async () => {
    const h = bearer(admin.token);
    expect((await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users/not-a-uuid', headers: h })).statusCode).toBe(400);
    expect((await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users?limit=101', headers: h })).statusCode).toBe(400);
    expect((await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users?account_type=king', headers: h })).statusCode).toBe(400);
    const missing = await ctx.app.inject({ method: 'GET', url: '/console/v1/admin/users/00000000-0000-4000-8000-000000000000', headers: h });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('ユーザーが見つかりません');
  });

  it('suspending a user ends their sessions and stops sign-in; activating lets them back', async () => {
    const email = uniqueEmail('suspended');
    const { token, user } = await signIn(ctx, email);
    const suspend = await ctx.app.inject({ method: 'POST', url: `/console/v1/admin/users/${user.id}/suspend`, headers: bearer(admin.token), payload: { reason: 'テスト' } });
    expect(suspend.statusCode).toBe(200);
    expect(suspend.json().data.user.status).toBe('suspended');
    expect((await getUser(token)).statusCode).toBe(401);

    await ctx.query("UPDATE auth_challenges SET created_at = created_at - interval '61 seconds' WHERE email = $1", [email]);
    const before = ctx.mailbox.count(email);
    expect((await requestCode(ctx, email)).statusCode).toBe(200);
    while (ctx.mailbox.count(email) === before) await new Promise((r) => setTimeout(r, 20));
    const denied = await verifyCode(ctx, email, codeOf(await ctx.mailbox.latest(email)));
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'ACCOUNT_SUSPENDED', message: 'このアカウントは停止されています。サポートにお問い合わせください' });

    const activate = await ctx.app.inject({ method: 'POST', url: `/console/v1/admin/users/${user.id}/activate`, headers: bearer(admin.token), payload: { reason: 'テスト' } });
    expect(activate.json().data.user.status).toBe('active');
    await ctx.query("UPDATE auth_challenges SET created_at = created_at - interval '61 seconds' WHERE email = $1", [email]);
    expect((await signIn(ctx, email)).user.id).toBe(user.id);
  });

  it('does not let an admin suspend themselves', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: `/console/v1/admin/users/${admin.user.id}/suspend`, headers: bearer(admin.token), payload: { reason: 'テスト' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('自分自身のアカウントは停止できません');
  });
});
