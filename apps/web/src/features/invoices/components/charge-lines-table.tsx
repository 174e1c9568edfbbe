import { formatNumber } from '@poi/shared/format';
import { unitYen, yen } from '../../../components/ui/billing-labels';
import { DataTable } from '../../../components/ui/data-table';

export interface ChargeLine {
  key: string;
  description: string;
  quantity: number;
  unitPrice: number;
  amount: number;
}

export interface ChargeTotal {
  label: string;
  value: string;
  strong?: boolean;
  testId?: string;
}

const cell = 'px-3 py-2';
const number = 'px-3 py-2 text-right tabular-nums';
const numberHeader = 'px-3 py-2 text-right font-medium';

/** 品目・数量・単価・金額 with the totals under them: this month's estimate and an issued invoice alike. */
export function ChargeLinesTable({ caption, lines, totals, emptyRow }: { caption: string; lines: ChargeLine[]; totals: ChargeTotal[]; emptyRow?: string }) {
  return (
    <DataTable<ChargeLine>
      caption={caption}
      rows={lines}
      rowKey={(l) => l.key}
      emptyRow={emptyRow}
      columns={[
        { header: '品目', cell: (l) => l.description, className: cell, headerClassName: 'px-3 py-2 font-medium' },
        { header: '数量', cell: (l) => formatNumber(l.quantity), className: number, headerClassName: numberHeader },
        { header: '単価', cell: (l) => unitYen(l.unitPrice), className: number, headerClassName: numberHeader },
        { header: '金額', cell: (l) => yen(l.amount), className: number, headerClassName: numberHeader },
      ]}
      footer={totals.map((t) => (
        <tr key={t.label} className={t.strong ? 'font-semibold' : ''}>
          <th scope="row" colSpan={3} className={`px-3 py-1.5 text-right ${t.strong ? '' : 'font-normal'}`}>
            {t.label}
          </th>
          <td className="px-3 py-1.5 text-right tabular-nums" data-testid={t.testId}>
            {t.value}
          </td>
        </tr>
      ))}
    />
  );
}
