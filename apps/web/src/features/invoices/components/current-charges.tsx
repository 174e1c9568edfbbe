import { formatDateTime, formatNumber } from '@poi/shared/format';
import type { CurrentCharges } from '@poi/shared/schemas/invoices';
import { yen } from '../../../components/ui/billing-labels';
import { YenWithTax } from '../../../components/ui/tax-inclusive-price';
import { ChargeLinesTable } from './charge-lines-table';

/**
 * This month so far, computed as the invoice will be (lines rounded down, tax once). Consumers
 * (総額表示) see the tax-inclusive figure first: taxInclusiveYen(subtotal), the invoice's total.
 */
export function CurrentChargesTable({ data, taxIncludedFirst = false }: { data: CurrentCharges; taxIncludedFirst?: boolean }) {
  const rows = [
    ...data.datasets.map((d) => ({
      key: d.dataset_id + d.unit_price,
      description: `データセット「${d.dataset_name}」`,
      quantity: d.searches,
      unitPrice: d.unit_price,
      amount: d.amount,
    })),
    ...(data.base_fee.searches > 0
      ? [{ key: 'base', description: '基本料金(無料枠を超えた検索)', quantity: data.base_fee.searches, unitPrice: data.base_fee.unit_price, amount: data.base_fee.amount }]
      : []),
    ...(data.monthly_fee > 0 ? [{ key: 'monthly', description: '月額料金', quantity: 1, unitPrice: data.monthly_fee, amount: data.monthly_fee }] : []),
  ];
  return (
    <div className="space-y-2">
      {taxIncludedFirst ? (
        <p className="text-base text-gray-900" data-testid="current-total-with-tax">
          今月のご利用見込み <YenWithTax yen={data.subtotal} className="text-lg font-bold" />
        </p>
      ) : null}
      <ChargeLinesTable
        caption="今月のご利用の内訳"
        lines={rows}
        emptyRow="今月の有料のご利用はまだありません"
        totals={[
          { label: '小計', value: yen(data.subtotal) },
          { label: '消費税(10%)見込み', value: yen(data.tax_estimate) },
          { label: '合計見込み(税込)', value: yen(data.total_estimate), strong: true, testId: 'current-total' },
        ]}
      />
      <p className="text-xs text-gray-700">
        無料検索 {formatNumber(data.free_searches.used)} / {formatNumber(data.free_searches.limit)} 回(残り {formatNumber(data.free_searches.remaining)} 回)・
        {formatDateTime(data.as_of)} 時点。消費税は請求書ごとに月の小計に対して10%(円未満切り捨て)で計算します。
      </p>
    </div>
  );
}
