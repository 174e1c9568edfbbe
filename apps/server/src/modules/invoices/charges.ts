/*
 * How a month of usage becomes invoice lines (docs/billing.md "The monthly close"), in integer sen and yen only:
 * a line = ⌊quantity × unit price in sen / 100⌋ yen, subtotal = Σ lines, consumption tax =
 * ⌊subtotal × 10 / 100⌋ once per invoice, total = subtotal + tax. The monthly close and
 * GET /billing/current both call this, so "this month so far" is what the invoice will say.
 */

import { consumptionTaxYen, CONSUMPTION_TAX_PERCENT, lineAmountYen } from '@poi/shared/invoice-math';

export { lineAmountYen };
export const TAX_RATE_PERCENT = CONSUMPTION_TAX_PERCENT;
export const TAX_RATE_BP = TAX_RATE_PERCENT * 100;
/** ⌊subtotal × 10 / 100⌋: the invoice's one consumption tax figure. */
export const taxOf = consumptionTaxYen;
/** Stripe's JPY minimum: a card total under it is not charged but carried to the next invoice. */
export const CARD_MINIMUM_YEN = 50;

export interface DatasetUsage {
  datasetId: string;
  name: string;
  /** The dataset's price per search in sen, as recorded on the usage events. */
  unitPriceSen: number;
  searches: number;
}

export interface BaseFeeUsage {
  /** The base fee per search in sen, as recorded on the usage events. */
  unitPriceSen: number;
  /** Searches beyond the month's free ones. */
  searches: number;
}

export interface CarriedInvoice {
  yearMonth: string;
  subtotalYen: number;
}

export interface ChargeInput {
  datasets: readonly DatasetUsage[];
  baseFees: readonly BaseFeeUsage[];
  monthlyFeeSen: number;
  /** Earlier months' invoices under the card minimum, not issued: their subtotal is carried here. */
  carried?: readonly CarriedInvoice[];
}

export interface ChargeLine {
  kind: 'dataset' | 'base_fee' | 'monthly_fee' | 'carry_over';
  datasetId: string | null;
  description: string;
  quantity: number;
  unitPriceSen: number;
  amountYen: number;
}

export interface Charges {
  lines: ChargeLine[];
  subtotalYen: number;
  taxYen: number;
  totalYen: number;
}

const monthLabel = (yearMonth: string): string => `${yearMonth.slice(0, 4)}年${Number(yearMonth.slice(5, 7))}月`;

export function computeCharges(input: ChargeInput): Charges {
  const lines: ChargeLine[] = [];
  const datasets = [...input.datasets]
    .filter((d) => d.searches > 0 && d.unitPriceSen > 0)
    .sort((a, b) => a.name.localeCompare(b.name, 'ja') || a.datasetId.localeCompare(b.datasetId) || a.unitPriceSen - b.unitPriceSen);
  for (const d of datasets) {
    lines.push({
      kind: 'dataset',
      datasetId: d.datasetId,
      description: `データセット検索料「${d.name}」`,
      quantity: d.searches,
      unitPriceSen: d.unitPriceSen,
      amountYen: lineAmountYen(d.searches, d.unitPriceSen),
    });
  }
  const baseFees = [...input.baseFees].filter((b) => b.searches > 0 && b.unitPriceSen > 0).sort((a, b) => a.unitPriceSen - b.unitPriceSen);
  for (const b of baseFees) {
    lines.push({
      kind: 'base_fee',
      datasetId: null,
      description: 'プラットフォーム基本料金(無料枠を超えた検索)',
      quantity: b.searches,
      unitPriceSen: b.unitPriceSen,
      amountYen: lineAmountYen(b.searches, b.unitPriceSen),
    });
  }
  if (input.monthlyFeeSen > 0) {
    lines.push({ kind: 'monthly_fee', datasetId: null, description: '月額料金', quantity: 1, unitPriceSen: input.monthlyFeeSen, amountYen: lineAmountYen(1, input.monthlyFeeSen) });
  }
  for (const c of [...(input.carried ?? [])].sort((a, b) => a.yearMonth.localeCompare(b.yearMonth))) {
    if (c.subtotalYen <= 0) continue;
    lines.push({
      kind: 'carry_over',
      datasetId: null,
      description: `${monthLabel(c.yearMonth)}分の繰越(カード決済の最低金額未満のため)`,
      quantity: 1,
      unitPriceSen: c.subtotalYen * 100,
      amountYen: c.subtotalYen,
    });
  }
  const subtotalYen = lines.reduce((n, l) => n + l.amountYen, 0);
  const taxYen = taxOf(subtotalYen);
  return { lines, subtotalYen, taxYen, totalYen: subtotalYen + taxYen };
}

/** Whether a computed invoice is issued now, carried to next month (card, under ¥50) or dropped (zero). */
export function issueDecision(totalYen: number, paymentMethod: 'card' | 'bank_transfer'): 'issue' | 'carry' | 'none' {
  if (totalYen <= 0) return 'none';
  if (paymentMethod === 'card' && totalYen < CARD_MINIMUM_YEN) return 'carry';
  return 'issue';
}

/** 'YYYY-MM-DD' of the last day of the month after a 'YYYY-MM' month (月末締め翌月末払い). */
export function endOfNextMonth(yearMonth: string): string {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m + 1, 0));
  return last.toISOString().slice(0, 10);
}

/** The 'YYYY-MM' before a 'YYYY-MM'. */
export function previousYearMonth(yearMonth: string): string {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 7);
}

/** The 'YYYY-MM' after a 'YYYY-MM'. */
export function nextYearMonth(yearMonth: string): string {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
}

/**
 * The tax inside a credit note (適格返還請求書) of `amountYen` (tax included) on an invoice already
 * credited `creditedBeforeYen`: tax = ⌊Σ after × 10 / 110⌋ − ⌊Σ before × 10 / 110⌋, the tax
 * included in the cumulative amount returned, rounded down once. A credit of the whole total
 * (in one note or several) returns exactly the invoice's tax, since ⌊(S + ⌊S/10⌋) × 10 / 110⌋ =
 * ⌊S/10⌋; subtotal = amount − tax.
 */
export function creditNoteSplit(creditedBeforeYen: number, amountYen: number): { subtotalYen: number; taxYen: number } {
  const included = (yen: number) => Math.floor((yen * TAX_RATE_PERCENT) / (100 + TAX_RATE_PERCENT));
  const taxYen = included(creditedBeforeYen + amountYen) - included(creditedBeforeYen);
  return { subtotalYen: amountYen - taxYen, taxYen };
}
