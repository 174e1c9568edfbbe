import { formatNumber, formatYen } from '@poi/shared/format';
import { DataTable } from './data-table';

export interface FiguresRow {
  id: string;
  name: string;
  /** A second, monospaced label (a key prefix). */
  sub?: string;
  searches: number;
  /** Yen: a charge on /usage, revenue on /revenue. */
  yen: number;
}

/** A titled table of searches and yen per row (per key, per dataset, per day) on /usage and /revenue. */
export function FiguresTable({ caption, nameHeader, yenHeader, rows }: { caption: string; nameHeader: string; yenHeader: string; rows: FiguresRow[] }) {
  return (
    <section className="rounded-lg border border-gray-200 bg-white">
      <h2 className="border-b border-gray-200 px-4 py-3 font-semibold text-gray-900">{caption}</h2>
      <DataTable<FiguresRow>
        rows={rows}
        rowKey={(r) => r.id}
        empty={<p className="px-4 py-6 text-sm text-gray-700">この月の検索はありません。</p>}
        className="overflow-x-auto"
        headClassName="bg-gray-50 text-left text-xs font-semibold text-gray-700"
        columns={[
          {
            header: nameHeader,
            key: 'name',
            headerClassName: 'px-4 py-2',
            className: 'px-4 py-2',
            cell: (r) => (
              <>
                <span className="break-words">{r.name}</span>
                {r.sub ? <span className="ml-2 font-mono text-xs text-gray-700">{r.sub}</span> : null}
              </>
            ),
          },
          { header: '検索回数', headerClassName: 'px-4 py-2 text-right', className: 'whitespace-nowrap px-4 py-2 text-right tabular-nums', cell: (r) => formatNumber(r.searches) },
          { header: yenHeader, key: 'yen', headerClassName: 'px-4 py-2 text-right', className: 'whitespace-nowrap px-4 py-2 text-right tabular-nums', cell: (r) => formatYen(r.yen) },
        ]}
      />
    </section>
  );
}
