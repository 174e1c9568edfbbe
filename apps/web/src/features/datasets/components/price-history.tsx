import { formatDateTime, formatYen } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import type { DatasetDetail } from '@poi/shared/schemas/datasets';
import { DataTable } from '../../../components/ui/data-table';

type Entry = DatasetDetail['pricing_history'][number];

const until = (h: Entry) => (h.effective_until ? formatDateTime(h.effective_until) : messages.stillValid);

/** 価格変更履歴 of the dataset detail screen: cards on narrow screens, a table from md up. */
export function PriceHistory({ entries }: { entries: Entry[] }) {
  return (
    <section aria-labelledby="price-history" className="rounded-lg border border-gray-200 bg-white p-4 sm:p-5">
      <h2 id="price-history" className="font-semibold text-gray-900">
        価格変更履歴
      </h2>
      <DataTable<Entry>
        rows={entries}
        rowKey={(h) => h.effective_from}
        className="-mx-5 mt-3 overflow-x-auto"
        tableClassName="w-full divide-y divide-gray-200 text-sm"
        headClassName="bg-gray-50 text-left text-xs font-semibold text-gray-700"
        mobile={{
          label: '価格変更履歴',
          className: 'mt-3 space-y-3',
          itemClassName: 'rounded-md border border-gray-200 p-3',
          render: (h) => (
            <>
              <p className="text-lg font-bold text-gray-900">{formatYen(h.price, 2)}</p>
              <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                <dt className="text-gray-700">適用開始</dt>
                <dd className="text-gray-900">{formatDateTime(h.effective_from)}</dd>
                <dt className="text-gray-700">適用終了</dt>
                <dd className="text-gray-900">{until(h)}</dd>
                <dt className="text-gray-700">理由</dt>
                <dd className="min-w-0 break-words text-gray-900">{h.reason || '-'}</dd>
              </dl>
            </>
          ),
        }}
        columns={[
          { header: '価格', cell: (h) => formatYen(h.price, 2), headerClassName: 'px-5 py-2', className: 'whitespace-nowrap px-5 py-2 font-medium text-gray-900' },
          { header: '適用開始', cell: (h) => formatDateTime(h.effective_from), headerClassName: 'px-3 py-2', className: 'whitespace-nowrap px-3 py-2 text-gray-800' },
          { header: '適用終了', cell: until, headerClassName: 'px-3 py-2', className: 'whitespace-nowrap px-3 py-2 text-gray-800' },
          { header: '理由', cell: (h) => h.reason || '-', headerClassName: 'px-5 py-2', className: 'break-words px-5 py-2 text-gray-800' },
        ]}
      />
    </section>
  );
}
