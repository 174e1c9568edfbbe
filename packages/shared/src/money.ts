/**
 * Yen amounts as integer hundredths ("sen"), so sums and products never meet binary floating
 * point (docs/architecture.md "Money"). numeric(10,2) values arrive from the database as strings.
 */
export function toSen(value: number | string): number {
  if (typeof value === 'number') return Math.round(value * 100);
  const m = /^(-)?(\d+)(?:\.(\d{1,2})\d*)?$/.exec(value.trim());
  if (!m) throw new Error(`not a yen amount: ${value}`);
  const sen = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -sen : sen;
}

/** '12.30' for 1230: the text form numeric(10,2) columns take. */
export function senToDecimalString(sen: number): string {
  const sign = sen < 0 ? '-' : '';
  const abs = Math.abs(sen);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A JSON number for an API answer; exact for every numeric(10,2) in range. */
export const senToYen = (sen: number): number => Number(senToDecimalString(sen));

/**
 * A type-ahead request (GET /api/v1/poi/suggest) costs a fifth of a search: each dataset's
 * per-search price and the base fee are divided by this, floored to the sen, each on its own
 * (docs/billing.md "Suggest"): ¥0.50 → ¥0.10, ¥1.25 → ¥0.25, ¥0.07 → ¥0.01, ¥0.04 → free.
 */
export const SUGGEST_PRICE_DIVISOR = 5;
export const suggestPriceSen = (searchPriceSen: number): number => Math.floor(searchPriceSen / SUGGEST_PRICE_DIVISOR);
