import { describe, expect, it } from 'vitest';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import { checkDigit } from '../billing-accounts/customer-number';
import { proposeMatches } from './bank-statement';

const body = '123456';
const valid = `${body}${checkDigit(body)}`;
const mistyped = `${body}${(checkDigit(body) + 1) % 10}`;
const pending = (remaining: number, customer_number = valid) => ({ invoice_id: `inv-${remaining}`, invoice_number: `POI-209901-${remaining}`, due_date: '2099-01-31', remaining, customer_number }) as unknown as PendingTransfer;
const row = (amount: number, payerName: string) => ({ line: 2, date: '2026-12-01', amount, payerName });

describe('proposeMatches with a mistyped お客様番号', () => {
  it('says the check digit is wrong, naming the number, and still proposes the one invoice of the same amount', () => {
    const [p] = proposeMatches([row(5_000, `${mistyped} ヤマダ`)], [pending(5_000, '7654321')]);
    expect(p).toMatchObject({ match: 'amount', customer_number: null, reason: `お客様番号 ${mistyped} のチェックディジットが正しくありません。金額が一致する請求書が1件あります(振込名義をご確認ください)` });
  });

  it('keeps the no-number wording for a line without digits, and matches a valid number', () => {
    expect(proposeMatches([row(1, 'ヤマダ')], [pending(5_000)])[0]!.reason).toBe('お客様番号がなく、金額の一致する請求書もありません');
    expect(proposeMatches([row(5_000, `${valid}ヤマダ`)], [pending(5_000)])[0]).toMatchObject({ match: 'exact', customer_number: valid });
  });
});
