import { describe, expect, it } from 'vitest';
import { captureLog, createTestContext } from './helpers';

/*
 * /commerce in production with part of the ISSUER_* and BANK_* configuration missing
 * (docs/billing.md "Legal notice: /commerce"): the answer claims nothing that is not configured,
 * and the start-up warning names every missing setting, the registration number and BANK_* included.
 */
describe('GET /console/v1/commerce in production with settings missing', () => {
  it('answers only configured values (no placeholder text), and one start-up warning names ISSUER_*, ISSUER_REGISTRATION_NUMBER and BANK_*', async () => {
    const log = captureLog();
    const ctx = await createTestContext(
      { NODE_ENV: 'production', LOG_LEVEL: 'warn', ISSUER_NAME: 'POI Cloud株式会社', ISSUER_PHONE: '03-0000-0000', BANK_NAME: 'テスト銀行', BANK_ACCOUNT_NUMBER: '1234567' },
      { logStream: log.stream },
    );
    try {
      expect(ctx.app.config.env).toBe('production');
      const res = await ctx.api('GET', '/commerce');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({
        complete: false,
        missing: ['ISSUER_REPRESENTATIVE', 'ISSUER_ADDRESS', 'ISSUER_EMAIL'],
        seller: 'POI Cloud株式会社',
        representative: null,
        address: null,
        phone: '03-0000-0000',
        phone_hours: null,
        email: null,
        registration_number: null,
        bank_account: null,
      });
      expect(res.body).not.toContain('未設定');
      expect(res.body).not.toContain('登録申請中');

      const warnings = log.find(/特定商取引法/);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.missing).toEqual(['ISSUER_REPRESENTATIVE', 'ISSUER_ADDRESS', 'ISSUER_EMAIL', 'ISSUER_REGISTRATION_NUMBER', 'BANK_BRANCH', 'BANK_ACCOUNT_HOLDER']);

      // The admin dashboard's configuration warnings name the same settings.
      const dashboard = await ctx.api('GET', '/admin/dashboard', await ctx.admin());
      expect(dashboard.statusCode, dashboard.body).toBe(200);
      const configWarnings: string[] = dashboard.json().data.warnings;
      expect(configWarnings).toEqual(
        expect.arrayContaining([
          '特定商取引法に基づく表記の必須項目が未設定です: ISSUER_REPRESENTATIVE, ISSUER_ADDRESS, ISSUER_EMAIL',
          'ISSUER_REGISTRATION_NUMBER が未設定のため、請求書が適格請求書になりません',
          'BANK_BRANCH, BANK_ACCOUNT_HOLDER が未設定のため、銀行振込をご案内できません',
        ]),
      );
    } finally {
      await ctx.close();
    }
  });
});
