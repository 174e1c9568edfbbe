import { TRANSFER_FEE_TOLERANCE_YEN } from '@poi/shared/schemas/transfers';

/**
 * What a received amount means for an invoice's remaining balance (docs/billing.md "Bank transfers"):
 * exact; short by at most ¥1,000 (the admin may book it as the customer's transfer fee); short by
 * more (partially paid); over (the excess becomes credit on the next invoice).
 */
export type TransferDifference =
  | { kind: 'invalid' }
  | { kind: 'exact' }
  | { kind: 'short_fee'; shortBy: number }
  | { kind: 'short'; shortBy: number }
  | { kind: 'over'; overBy: number };

export function transferDifference(remaining: number, received: string): TransferDifference {
  const amount = Number(received);
  if (!received.trim() || !Number.isSafeInteger(amount) || amount < 1) return { kind: 'invalid' };
  if (amount === remaining) return { kind: 'exact' };
  if (amount > remaining) return { kind: 'over', overBy: amount - remaining };
  const shortBy = remaining - amount;
  return shortBy <= TRANSFER_FEE_TOLERANCE_YEN ? { kind: 'short_fee', shortBy } : { kind: 'short', shortBy };
}
