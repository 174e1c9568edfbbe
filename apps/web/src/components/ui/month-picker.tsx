import { ChevronLeft, ChevronRight } from 'lucide-react';
import { currentYearMonth } from '@poi/shared/format';

/** The service's first month: the list starts here when the account's own first month is not known. */
export const FIRST_MONTH = '2020-01';

function shift(yearMonth: string, months: number): string {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + months, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Every month from `first` (the account's first month; the service's start by default) to now, newest first. */
export function selectableMonths(now = currentYearMonth(), first = FIRST_MONTH): string[] {
  const months: string[] = [];
  for (let m = now; m >= first; m = shift(m, -1)) months.push(m);
  return months.length ? months : [now];
}

export const monthLabel = (yearMonth: string): string => `${yearMonth.slice(0, 4)}年${Number(yearMonth.slice(5))}月`;

/**
 * A YYYY-MM month picker, up to the current month (Japan time): a list of months in Japanese
 * whatever the browser's language, with previous/next buttons.
 */
export function MonthPicker({
  id,
  value,
  onChange,
  label = '対象月',
  first = FIRST_MONTH,
}: {
  id: string;
  value: string;
  onChange: (yearMonth: string) => void;
  label?: string;
  /** The oldest month offered (YYYY-MM): an account's first month, so no month before it is listed. */
  first?: string;
}) {
  const months = selectableMonths(undefined, first);
  const newest = months[0]!;
  const oldest = months.at(-1)!;
  const button = 'flex h-11 w-11 items-center justify-center rounded-md border border-gray-400 bg-white text-gray-800 sm:h-9 sm:w-9 hover:bg-gray-50 disabled:cursor-not-allowed disabled:text-gray-400';
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor={id} className="whitespace-nowrap text-sm font-medium text-gray-800">
        {label}
      </label>
      <button type="button" className={button} aria-label="前の月" disabled={value <= oldest} onClick={() => onChange(shift(value, -1))}>
        <ChevronLeft className="h-4 w-4" aria-hidden="true" />
      </button>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className="rounded-md border border-gray-400 bg-white px-3 py-2 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
      >
        {months.map((m) => (
          <option key={m} value={m}>
            {monthLabel(m)}
          </option>
        ))}
      </select>
      <button type="button" className={button} aria-label="次の月" disabled={value >= newest} onClick={() => onChange(shift(value, 1))}>
        <ChevronRight className="h-4 w-4" aria-hidden="true" />
      </button>
    </div>
  );
}
