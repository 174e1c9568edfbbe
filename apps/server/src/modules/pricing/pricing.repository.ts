import { asc } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { pricingVersions } from '../../db/schema/pricing';

export type PricingVersionRow = typeof pricingVersions.$inferSelect;

export async function listPricingVersions(ex: Executor): Promise<PricingVersionRow[]> {
  return ex.select().from(pricingVersions).orderBy(asc(pricingVersions.accountType), asc(pricingVersions.effectiveFrom));
}
