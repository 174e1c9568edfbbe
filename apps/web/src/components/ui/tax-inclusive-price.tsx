import { formatUnitPriceMilliYen, formatUnitPriceSen, formatYenAmount } from '@poi/shared/format';
import { taxInclusiveUnitPriceMilliYen, taxInclusiveYen } from '@poi/shared/invoice-math';
import { toSen } from '@poi/shared/money';

/*
 * 総額表示 (docs/billing.md): consumers (trial and individual accounts) see the tax-inclusive price
 * first, the tax-exclusive one beside it; corporate screens lead with 税抜. The one rounding rule
 * is packages/shared's invoice-math (taxInclusiveYen, taxInclusiveUnitPriceMilliYen).
 */

/** Whether an account type is shown prices tax-inclusive first (consumers). */
export const isConsumerAccount = (accountType: string | null | undefined): boolean => accountType === 'trial' || accountType === 'individual';

/** A per-search price (yen with up to 2 decimals): 「税込 ¥1.463（税抜 ¥1.33）」, exact. */
export function UnitPriceWithTax({ price, className }: { price: number; className?: string }) {
  const sen = toSen(price);
  return (
    <span className={className}>
      <span className="whitespace-nowrap">税込 {formatUnitPriceMilliYen(taxInclusiveUnitPriceMilliYen(sen))}</span>
      <span className="ml-1 whitespace-nowrap text-[0.85em] font-normal text-gray-700">（税抜 {formatUnitPriceSen(sen)}）</span>
    </span>
  );
}

/** A whole-yen amount (a monthly fee, an estimate's subtotal): 「税込 ¥1,078（税抜 ¥980）」, as an invoice totals it. */
export function YenWithTax({ yen, className }: { yen: number; className?: string }) {
  return (
    <span className={className}>
      <span className="whitespace-nowrap">税込 {formatYenAmount(taxInclusiveYen(yen))}</span>
      <span className="ml-1 whitespace-nowrap text-[0.85em] font-normal text-gray-700">（税抜 {formatYenAmount(yen)}）</span>
    </span>
  );
}

/** Why a per-search 税込 price is indicative. */
export const PER_SEARCH_TAX_NOTE = '消費税は請求書ごとに月のご利用合計(税抜)に対して10%(円未満切り捨て)で計算するため、1検索あたりの税込額は目安です。';
