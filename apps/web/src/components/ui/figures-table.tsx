import { formatNumber, formatYen } from '@poi/shared/format';

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
      {rows.length ? (
        <div tabIndex={0} className="overflow-x-auto">
          <table className="min-w-full text-sm">
            <thead className="bg-gray-50 text-left text-xs font-semibold text-gray-700">
              <tr>
                <th scope="col" className="px-4 py-2">{nameHeader}</th>
                <th scope="col" className="px-4 py-2 text-right">検索回数</th>
                <th scope="col" className="px-4 py-2 text-right">{yenHeader}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-100">
              {rows.map((r) => (
                <tr key={r.id}>
                  <td className="px-4 py-2">
                    <span className="break-words">{r.name}</span>
                    {r.sub ? <span className="ml-2 font-mono text-xs text-gray-700">{r.sub}</span> : null}
                  </td>
                  <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">{formatNumber(r.searches)}</td>
                  <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">{formatYen(r.yen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="px-4 py-6 text-sm text-gray-700">この月の検索はありません。</p>
      )}
    </section>
  );
}
