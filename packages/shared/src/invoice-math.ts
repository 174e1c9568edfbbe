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
