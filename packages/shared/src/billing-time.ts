import { BILLING_UTC_OFFSET_HOURS } from './limits';

const OFFSET_MS = BILLING_UTC_OFFSET_HOURS * 60 * 60 * 1000;

/** 'YYYY-MM' of an instant in Japan time. */
export function yearMonthOf(at: Date = new Date()): string {
  return new Date(at.getTime() + OFFSET_MS).toISOString().slice(0, 7);
}

/** 'YYYY-MM-DD' of an instant in Japan time. */
export function dayOf(at: Date = new Date()): string {
  return new Date(at.getTime() + OFFSET_MS).toISOString().slice(0, 10);
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
