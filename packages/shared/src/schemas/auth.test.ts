import { describe, expect, it } from 'vitest';
import { emailSchema, magicTokenSchema, otpCodeSchema, requestOtpBodySchema, safeRedirect } from './auth';

const messageOf = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) => r.error?.issues[0]?.message;

describe('emailSchema', () => {
  it('requires an address and the simple pattern, with the spec texts', () => {
    expect(messageOf(emailSchema.safeParse(''))).toBe('メールアドレスを入力してください');
    expect(messageOf(emailSchema.safeParse(undefined))).toBe('メールアドレスを入力してください');
    expect(messageOf(emailSchema.safeParse('user@host'))).toBe('有効なメールアドレスを入力してください');
    expect(messageOf(emailSchema.safeParse('a b@example.com'))).toBe('有効なメールアドレスを入力してください');
    expect(emailSchema.parse('  User@Example.COM ')).toBe('user@example.com');
  });
});

describe('otpCodeSchema', () => {
  it('needs exactly 6 digits', () => {
    expect(messageOf(otpCodeSchema.safeParse(''))).toBe('認証コードを入力してください');
    expect(messageOf(otpCodeSchema.safeParse('12345'))).toBe('6桁の認証コードを入力してください');
    expect(messageOf(otpCodeSchema.safeParse('12a456'))).toBe('認証コードは数字のみで入力してください');
    expect(otpCodeSchema.safeParse('012345').success).toBe(true);
    expect(otpCodeSchema.safeParse('1234567').success).toBe(false);
  });
});

describe('magicTokenSchema', () => {
  it('accepts exactly 64 of [a-z0-9]', () => {
    expect(magicTokenSchema.safeParse('a1'.repeat(32)).success).toBe(true);
    expect(messageOf(magicTokenSchema.safeParse('A1'.repeat(32)))).toBe('マジックリンクのトークンが無効です。');
    expect(magicTokenSchema.safeParse('a'.repeat(63)).success).toBe(false);
    expect(magicTokenSchema.safeParse('a'.repeat(65)).success).toBe(false);
  });
});

describe('safeRedirect', () => {
  it('keeps same-site paths and drops everything else', () => {
    expect(safeRedirect('/marketplace/abc?x=1#top')).toBe('/marketplace/abc?x=1#top');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '', undefined, 42, '/a\nb']) {
      expect(safeRedirect(bad)).toBe('/dashboard');
    }
    expect(requestOtpBodySchema.parse({ email: 'a@example.com', redirect: '//x' }).redirect).toBe('/dashboard');
  });
});
