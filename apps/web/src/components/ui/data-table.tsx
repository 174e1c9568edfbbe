import type { HTMLAttributes, ReactNode } from 'react';

export interface Column<T> {
  /** Also the column's React key, unless `key` is given (a header that is not a plain text). */
  header: ReactNode;
  key?: string;
  cell: (row: T) => ReactNode;
  align?: 'right';
  /** The cell is the row's header (`<th scope="row">`): the label the other cells are read with. */
  rowHeader?: boolean;
  headerClassName?: string;
  className?: string;
  /**
   * The column stays at the right edge while the table scrolls sideways inside its box (a row's
   * actions): on a window too narrow for every column the action is still in view.
   */
  stickyEnd?: boolean;
}

/** Cards instead of the table below the md breakpoint, for lists whose rows are too wide for a phone. */
export interface MobileCards<T> {
  label: string;
  render: (row: T) => ReactNode;
  className?: string;
  itemClassName?: string;
  /** Where the table takes over from the cards: md (default), or lg for tables that need a wide window to keep every column readable. */
  breakpoint?: 'md' | 'lg';
}

// Whole class names, so Tailwind finds them: [cards, table] per breakpoint.
const SWITCH = { md: ['md:hidden', 'hidden md:block'], lg: ['lg:hidden', 'hidden lg:block'] } as const;

interface DataTableProps<T> {
  columns: Array<Column<T>>;
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** The table's accessible name, read as its caption (visually hidden) and as the scroll region's label. */
  caption?: string;
  /** The scroll region's label when it should differ from the caption. */
  regionLabel?: string;
  /** Shown instead of the table when there are no rows. */
  empty?: ReactNode;
  /** Shown as the table's one row when there are no rows (the table and its footer stay). */
  emptyRow?: ReactNode;
  mobile?: MobileCards<T>;
  /** Rows of a `<tfoot>` (totals). */
  footer?: ReactNode;
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, unknown>;
  className?: string;
  tableClassName?: string;
  headClassName?: string;
  bodyClassName?: string;
}

const cellAlign = (c: { align?: 'right' }) => (c.align === 'right' ? 'text-right tabular-nums' : '');
const keyOf = <T,>(c: Column<T>) => c.key ?? String(c.header);
// The sticky column's own background (the rows scroll underneath it) and a rule on its left.
const STICKY_HEAD = 'sticky right-0 bg-gray-50 shadow-[inset_1px_0_0_#e5e7eb]';
const STICKY_CELL = 'sticky right-0 bg-white shadow-[inset_1px_0_0_#e5e7eb]';

/**
 * The console's table: scrolls sideways inside its own box on a phone (the page never widens), with
 * column headers scoped for screen readers, an optional caption, empty state and card layout for
 * narrow screens. The default look is the admin lists'; screens with their own pass class names.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  caption,
  regionLabel = caption,
  empty,
  emptyRow,
  mobile,
  footer,
  rowProps,
  className = 'overflow-x-auto rounded-lg border border-gray-200 bg-white',
  tableClassName = 'min-w-full text-sm',
  headClassName = 'bg-gray-50 text-left text-gray-700',
  bodyClassName = 'divide-y divide-gray-100',
}: DataTableProps<T>) {
  if (!rows.length && empty !== undefined) return <>{empty}</>;
  const table = (
    <div className={`${className} ${mobile ? SWITCH[mobile.breakpoint ?? 'md'][1] : ''}`} tabIndex={0} role={regionLabel ? 'region' : undefined} aria-label={regionLabel}>
      <table className={tableClassName}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead className={headClassName}>
          <tr>
            {columns.map((c) => (
              <th
                key={keyOf(c)}
                scope="col"
                className={`${c.headerClassName ?? `whitespace-nowrap px-3 py-2 font-medium ${c.align === 'right' ? 'text-right' : ''}`} ${c.stickyEnd ? STICKY_HEAD : ''}`}
              >
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={bodyClassName}>
          {!rows.length && emptyRow !== undefined ? (
            <tr>
              <td colSpan={columns.length} className="px-3 py-4 text-center text-gray-700">
                {emptyRow}
              </td>
            </tr>
          ) : null}
          {rows.map((r) => (
            <tr key={rowKey(r)} {...rowProps?.(r)}>
              {columns.map((c) => {
                const cls = `${c.className ?? `whitespace-nowrap px-3 py-2 text-gray-900 ${cellAlign(c)}`} ${c.stickyEnd ? STICKY_CELL : ''}`;
                return c.rowHeader ? (
                  <th key={keyOf(c)} scope="row" className={cls}>
                    {c.cell(r)}
                  </th>
                ) : (
                  <td key={keyOf(c)} className={cls}>
                    {c.cell(r)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
        {footer ? <tfoot className="border-t border-gray-200 text-gray-900">{footer}</tfoot> : null}
      </table>
    </div>
  );
  if (!mobile) return table;
  return (
    <>
      <ul className={`${SWITCH[mobile.breakpoint ?? 'md'][0]} ${mobile.className ?? 'space-y-3'}`} aria-label={mobile.label}>
        {rows.map((r) => (
          <li key={rowKey(r)} className={mobile.itemClassName}>
            {mobile.render(r)}
          </li>
        ))}
      </ul>
      {table}
    </>
  );
}
