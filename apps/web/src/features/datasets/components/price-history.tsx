import { formatDateTime, formatYen } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import type { DatasetDetail } from '@poi/shared/schemas/datasets';

type Entry = DatasetDetail['pricing_history'][number];

const until = (h: Entry) => (h.effective_until ? formatDateTime(h.effective_until) : messages.stillValid);

/** 価格変更履歴 of the dataset detail screen: cards on narrow screens, a table from md up (as /api-keys). */
export function PriceHistory({ entries }: { entries: Entry[] }) {
  return (
    <section aria-labelledby="price-history" className="rounded-lg border border-gray-200 bg-white p-4 sm:p-5">
      <h2 id="price-history" className="font-semibold text-gray-900">
        価格変更履歴
      </h2>
      <ul className="mt-3 space-y-3 md:hidden" aria-label="価格変更履歴">
        {entries.map((h) => (
          <li key={h.effective_from} className="rounded-md border border-gray-200 p-3">
            <p className="text-lg font-bold text-gray-900">{formatYen(h.price, 2)}</p>
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-gray-700">適用開始</dt>
              <dd className="text-gray-900">{formatDateTime(h.effective_from)}</dd>
              <dt className="text-gray-700">適用終了</dt>
              <dd className="text-gray-900">{until(h)}</dd>
              <dt className="text-gray-700">理由</dt>
              <dd className="min-w-0 break-words text-gray-900">{h.reason || '-'}</dd>
            </dl>
          </li>
        ))}
      </ul>
      <div className="-mx-5 mt-3 hidden overflow-x-auto md:block">
        <table className="w-full divide-y divide-gray-200 text-sm">
          <thead className="bg-gray-50 text-left text-xs font-semibold text-gray-700">
            <tr>
              <th scope="col" className="px-5 py-2">価格</th>
              <th scope="col" className="px-3 py-2">適用開始</th>
              <th scope="col" className="px-3 py-2">適用終了</th>
              <th scope="col" className="px-5 py-2">理由</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-gray-100">
            {entries.map((h) => (
              <tr key={h.effective_from}>
                <td className="whitespace-nowrap px-5 py-2 font-medium text-gray-900">{formatYen(h.price, 2)}</td>
                <td className="whitespace-nowrap px-3 py-2 text-gray-800">{formatDateTime(h.effective_from)}</td>
                <td className="whitespace-nowrap px-3 py-2 text-gray-800">{until(h)}</td>
                <td className="break-words px-5 py-2 text-gray-800">{h.reason || '-'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
