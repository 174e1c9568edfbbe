import { yearMonthOf } from './billing-time';
import { AVATAR_INITIALS_MAX, COORDINATE_DECIMALS } from './limits';

const yenFormatters = new Map<number, Intl.NumberFormat>();

/** '¥1,234.50' — yen with a fixed number of decimals and thousands separators. */
export function formatYen(value: number | string, decimals = 2): string {
  const n = typeof value === 'string' ? Number(value) : value;
  let f = yenFormatters.get(decimals);
  if (!f) {
    f = new Intl.NumberFormat('ja-JP', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    yenFormatters.set(decimals, f);
  }
  return `¥${f.format(Number.isFinite(n) ? n : 0)}`;
}

const wholeYen = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 0 });

/**
 * '¥1,234' / '-¥500' — an amount of whole yen as the invoice and receipt PDFs print it: the minus
 * before the yen sign (formatYen(-500, 0) gives '¥-500', the shape of screens and mails).
 */
export const formatYenAmount = (yen: number): string => (yen < 0 ? `-¥${wholeYen.format(-yen)}` : `¥${wholeYen.format(yen)}`);

/**
 * A unit price in sen as yen with exactly 2 decimals: 1234567 → '¥12,345.67'. Integer arithmetic
 * only, so it stays exact past 2^53 / 100 where a float division would round.
 */
export function formatUnitPriceSen(sen: number): string {
  const abs = Math.abs(sen);
  return `${sen < 0 ? '-' : ''}¥${wholeYen.format(Math.trunc(abs / 100))}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * A unit price in thousandths of a yen (a tax-inclusive per-search price, invoice-math's
 * taxInclusiveUnitPriceMilliYen), exactly: at least 2 decimals, a third only when it is not 0
 * (1463 → '¥1.463', 550 → '¥0.55'). Integer arithmetic only, never rounded.
 */
export function formatUnitPriceMilliYen(milliYen: number): string {
  const abs = Math.abs(milliYen);
  const fraction = String(abs % 1000).padStart(3, '0');
  return `${milliYen < 0 ? '-' : ''}¥${wholeYen.format(Math.trunc(abs / 1000))}.${fraction.endsWith('0') ? fraction.slice(0, 2) : fraction}`;
}

const unitPriceFormatter = new Intl.NumberFormat('ja-JP', { minimumFractionDigits: 2, maximumFractionDigits: 3 });

/**
 * A unit price in yen as every screen shows it (a per-search price, a charge line's 単価): 2
 * decimals, a third only when the value has one (a tenth of a sen) — ¥0.50, ¥0.00, ¥1.463, never
 * ¥0.5000. The one rule for unit prices held as yen numbers; formatUnitPriceSen and
 * formatUnitPriceMilliYen are its exact integer forms.
 */
export function formatUnitPrice(yen: number | string): string {
  const n = typeof yen === 'string' ? Number(yen) : yen;
  return `¥${unitPriceFormatter.format(Number.isFinite(n) ? n : 0)}`;
}

const dateFormatter = new Intl.DateTimeFormat('ja-JP', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'Asia/Tokyo' });
const dateTimeFormatter = new Intl.DateTimeFormat('ja-JP', {
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Tokyo',
});

/** ja-JP date, e.g. '2026/11/22'. Empty string for a missing or invalid date. */
export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return '';
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? '' : dateFormatter.format(d);
}

export function formatDateTime(value: string | Date | null | undefined): string {
  if (!value) return '';
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? '' : dateTimeFormatter.format(d);
}

export function formatCoordinate(value: number): string {
  return value.toFixed(COORDINATE_DECIMALS);
}

export function formatNumber(value: number): string {
  return value.toLocaleString('ja-JP');
}

/** File size in B, KB or MB (spec: bulk import modal). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Up to two initials for the avatar. Latin names give the first letters of the first two
 * words ("Taro Yamada" → "TY"); Japanese names, which have no spaces, give their first two
 * characters ("山田太郎" → "山田"). Falls back to the e-mail's first letter.
 */
export function getInitials(name: string | null | undefined, email?: string | null): string {
  const source = (name ?? '').trim();
  if (source) {
    const words = source.split(/\s+/u).filter(Boolean);
    const letters = words.length > 1 ? words.map((w) => Array.from(w)[0] ?? '').join('') : Array.from(source).join('');
    return Array.from(letters).slice(0, AVATAR_INITIALS_MAX).join('').toUpperCase();
  }
  const first = Array.from((email ?? '').trim())[0];
  return first ? first.toUpperCase() : '?';
}

/** Current month as YYYY-MM in Japan time (the billing month). */
export const currentYearMonth = (now = new Date()): string => yearMonthOf(now);
