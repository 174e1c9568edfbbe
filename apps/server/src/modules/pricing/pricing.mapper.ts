import { toSen, senToYen } from '@poi/shared/money';
import type { PricingVersion } from '@poi/shared/schemas/pricing';
import type { PricingVersionRow } from './pricing.repository';

export const toPricingVersion = (v: PricingVersionRow): PricingVersion => ({
  id: v.id,
  account_type: v.accountType,
  effective_from: v.effectiveFrom.toISOString(),
  base_fee: senToYen(toSen(v.baseFee)),
  free_searches_per_month: v.freeSearchesPerMonth,
  monthly_fee: senToYen(toSen(v.monthlyFee)),
  provider_share_percent: v.providerShareBp / 100,
  rate_limit_per_minute: v.rateLimitPerMinute,
  max_api_keys: v.maxApiKeys,
});
