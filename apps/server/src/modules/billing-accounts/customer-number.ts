import { randomInt } from 'node:crypto';

/**
 * お客様番号 (docs/billing.md "Billing accounts"): 6 random digits (first not 0) and a check digit, so any one digit typed
 * wrong on a bank transfer is caught (and most swaps of neighbours). The check digit is the
 * weighted sum mod 10 with weights 7,3,1 repeating (as Japanese bank reference numbers use).
 */
export function checkDigit(body: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * weights[i % 3]!;
  return (10 - (sum % 10)) % 10;
}

export function newCustomerNumber(): string {
  const body = String(randomInt(100000, 1000000));
  return `${body}${checkDigit(body)}`;
}

export function isValidCustomerNumber(value: string): boolean {
  return /^[1-9]\d{6}$/.test(value) && checkDigit(value.slice(0, 6)) === Number(value[6]);
}
