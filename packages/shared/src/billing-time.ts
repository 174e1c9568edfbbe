import { BILLING_UTC_OFFSET_HOURS } from './limits';

const OFFSET_MS = BILLING_UTC_OFFSET_HOURS * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The day (and month) of the last instant asked, with the instants that day spans: every metered
 * public request asks both, almost always for the same day, and formatting a date each time was
 * about 1 % of a search's server CPU.
 */
let lastDay = { from: 0, to: -1, day: '', yearMonth: '' };

function japanDay(at: Date): typeof lastDay {
  const t = at.getTime();
  if (t >= lastDay.from && t < lastDay.to) return lastDay;
  // An invalid date throws here, as it always did.
  const text = new Date(t + OFFSET_MS).toISOString();
  const from = Math.floor((t + OFFSET_MS) / DAY_MS) * DAY_MS - OFFSET_MS;
  lastDay = { from, to: from + DAY_MS, day: text.slice(0, 10), yearMonth: text.slice(0, 7) };
  return lastDay;
}

/** 'YYYY-MM' of an instant in Japan time. */
export function yearMonthOf(at: Date = new Date()): string {
  return japanDay(at).yearMonth;
}

/** 'YYYY-MM-DD' of an instant in Japan time. */
export function dayOf(at: Date = new Date()): string {
  return japanDay(at).day;
}

/** The first instant of a 'YYYY-MM' month in Japan time, and the first instant of the next one. */
export function monthRange(yearMonth: string): { start: Date; end: Date } {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  return {
    start: new Date(Date.UTC(y, m - 1, 1) - OFFSET_MS),
    end: new Date(Date.UTC(y, m, 1) - OFFSET_MS),
  };
}

/** The first instant of a 'YYYY-MM-DD' day in Japan time. */
export function startOfDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d) - OFFSET_MS);
}

/** The end of a 'YYYY-MM-DD' day in Japan time: the first instant of the next day. */
export function endOfDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1) - OFFSET_MS);
}

/** Every 'YYYY-MM-DD' of a 'YYYY-MM' month. */
export function daysOfMonth(yearMonth: string): string[] {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => `${yearMonth}-${String(i + 1).padStart(2, '0')}`);
}
