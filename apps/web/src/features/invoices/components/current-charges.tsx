import { formatDateTime, formatNumber } from '@poi/shared/format';
import type { CurrentCharges } from '@poi/shared/schemas/invoices';
import { unitYen, yen } from '../../../components/ui/billing-labels';

/** This month so far, computed as the invoice will be (lines rounded down, tax once). */
export function CurrentChargesTable({ data }: { data: CurrentCharges }) {
  const rows = [
    ...data.datasets.map((d) => ({ key: d.dataset_id + d.unit_price, name: `データセット「${d.dataset_name}」`, qty: d.searches, unit: d.unit_price, amount: d.amount })),
    ...(data.base_fee.searches > 0 ? [{ key: 'base', name: '基本料金(無料枠を超えた検索)', qty: data.base_fee.searches, unit: data.base_fee.unit_price, amount: data.base_fee.amount }] : []),
    ...(data.monthly_fee > 0 ? [{ key: 'monthly', name: '月額料金', qty: 1, unit: data.monthly_fee, amount: data.monthly_fee }] : []),
  ];
  return (
    <div className="space-y-2">
      <div className="overflow-x-auto rounded-lg border border-gray-200 bg-white">
        <table className="min-w-full text-sm">
          <caption className="sr-only">今月のご利用の内訳</caption>
          <thead className="bg-gray-50 text-left text-gray-700">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                品目
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                数量
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                単価
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                金額
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {rows.length === 0 ? (
              <tr>
                <td colSpan={4} className="px-3 py-4 text-center text-gray-700">
                  今月の有料のご利用はまだありません
                </td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={r.key}>
                  <td className="px-3 py-2">{r.name}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatNumber(r.qty)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{unitYen(r.unit)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{yen(r.amount)}</td>
                </tr>
              ))
            )}
          </tbody>
          <tfoot className="border-t border-gray-200 text-gray-900">
            <tr>
              <th scope="row" colSpan={3} className="px-3 py-1.5 text-right font-normal">
                小計
              </th>
              <td className="px-3 py-1.5 text-right tabular-nums">{yen(data.subtotal)}</td>
            </tr>
            <tr>
              <th scope="row" colSpan={3} className="px-3 py-1.5 text-right font-normal">
                消費税(10%)見込み
              </th>
              <td className="px-3 py-1.5 text-right tabular-nums">{yen(data.tax_estimate)}</td>
            </tr>
            <tr className="font-semibold">
              <th scope="row" colSpan={3} className="px-3 py-1.5 text-right">
                合計見込み(税込)
              </th>
              <td className="px-3 py-1.5 text-right tabular-nums" data-testid="current-total">
                {yen(data.total_estimate)}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      <p className="text-xs text-gray-700">
        無料検索 {formatNumber(data.free_searches.used)} / {formatNumber(data.free_searches.limit)} 回(残り {formatNumber(data.free_searches.remaining)} 回)・
        {formatDateTime(data.as_of)} 時点
      </p>
    </div>
  );
}
