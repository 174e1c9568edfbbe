/*
 * How an invoice turns quantities and unit prices into yen (docs/billing.md "The monthly close", "Amounts"), as pure
 * integer arithmetic: the monthly close writes its lines with it, and the budget check and
 * /billing estimate "this month so far" with it, so both always agree to the yen.
 */

/** Consumption tax rate, percent (one rate: 10 %). */
export const CONSUMPTION_TAX_PERCENT = 10;

/** One invoice line before rounding: a count and a unit price in sen (hundredths of a yen). */
export interface ChargeLine {
  quantity: number;
  unitPriceSen: number;
}

/** ⌊a / b⌋ for non-negative safe integers, without a floating-point division. */
const floorDiv = (a: number, b: number): number => (a - (a % b)) / b;

/** A line's amount: ⌊quantity × unit price in sen / 100⌋ yen. */
export function lineAmountYen(quantity: number, unitPriceSen: number): number {
  const sen = quantity * unitPriceSen;
  if (!Number.isSafeInteger(sen)) throw new RangeError(`line amount out of range: ${quantity} × ${unitPriceSen}`);
  return floorDiv(sen, 100);
}

/** Consumption tax of an invoice, once per invoice: ⌊subtotal × 10 / 100⌋ yen. */
export function consumptionTaxYen(subtotalYen: number): number {
  return floorDiv(subtotalYen * CONSUMPTION_TAX_PERCENT, 100);
}

export interface InvoiceTotals {
  subtotalYen: number;
  taxYen: number;
  totalYen: number;
}

/** Subtotal (Σ of the rounded lines), tax and total of a set of lines. */
export function invoiceTotals(lines: Iterable<ChargeLine>): InvoiceTotals {
  let subtotalYen = 0;
  for (const line of lines) subtotalYen += lineAmountYen(line.quantity, line.unitPriceSen);
  return totalsOfSubtotal(subtotalYen);
}

export function totalsOfSubtotal(subtotalYen: number): InvoiceTotals {
  const taxYen = consumptionTaxYen(subtotalYen);
  return { subtotalYen, taxYen, totalYen: subtotalYen + taxYen };
}

/*
 * 総額表示 (tax-inclusive prices shown to consumers), one rounding rule (docs/billing.md "総額表示"):
 * a whole-yen amount is shown as what an invoice with that subtotal totals; a per-search unit price
 * is shown exactly, since the tax is computed once per invoice on the month's subtotal.
 */

/** A whole-yen amount (a monthly fee, an estimate's subtotal) with tax: amount + ⌊amount × 10 / 100⌋. */
export function taxInclusiveYen(amountYen: number): number {
  if (!Number.isSafeInteger(amountYen) || amountYen < 0) throw new RangeError(`not a whole-yen amount: ${amountYen}`);
  return totalsOfSubtotal(amountYen).totalYen;
}

/**
 * A per-search unit price in sen with tax, exactly, in thousandths of a yen (sen × 110 / 100 sen =
 * sen × 11 thousandths): ¥1.33 → 1,463 (¥1.463). Indicative only: an invoice taxes the month's
 * subtotal once, never a single search.
 */
export function taxInclusiveUnitPriceMilliYen(unitPriceSen: number): number {
  if (!Number.isSafeInteger(unitPriceSen) || unitPriceSen < 0) throw new RangeError(`not a unit price in sen: ${unitPriceSen}`);
  return (unitPriceSen * (100 + CONSUMPTION_TAX_PERCENT)) / 10;
}
