import { describe, expect, it } from 'vitest';
import { validatePricingForm } from './pages/admin-pricing-page';

describe('pricing form', () => {
  const valid = {
    account_type: 'individual',
    effective_from: '2099-01-01',
    base_fee: '0.12',
    free_searches_per_month: '2000',
    monthly_fee: '0',
    provider_share_percent: '70',
    rate_limit_per_minute: '600',
    max_api_keys: '10',
    reason: '改定',
  };
  it('checks every bound with the shared schema and names each field', () => {
    expect(validatePricingForm(valid).body).toMatchObject({ base_fee: 0.12, free_searches_per_month: 2000 });
    const { errors } = validatePricingForm({ ...valid, base_fee: '0.001', max_api_keys: '0', effective_from: '2099-02-30', reason: '' });
    expect(errors.base_fee).toContain('基本料金');
    expect(errors.max_api_keys).toContain('APIキーの上限');
    expect(errors.effective_from).toContain('適用開始日');
    expect(errors.reason).toBe('理由を入力してください');
  });
});
