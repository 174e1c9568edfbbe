import type { BankTransferInstructions } from '@poi/shared/schemas/invoices';
import type { Config } from '../../config';

/** Where a bank-transfer customer pays (config BANK_*), or null when no bank account is configured. */
export function bankTransferInstructions(bank: Config['bank'], customerNumber: string): BankTransferInstructions | null {
  if (!bank) return null;
  return {
    bank_name: bank.name,
    branch_name: bank.branch,
    account_type: bank.accountType,
    account_number: bank.accountNumber,
    account_holder: bank.holder,
    customer_number: customerNumber,
    notes: [
      `お振込の際は、振込名義人の前にお客様番号「${customerNumber}」を入力してください。`,
      '振込手数料はお客様ご負担でお願いいたします。',
    ],
  };
}

/** The bank account as frozen on an issued invoice (its PDF never follows later BANK_* changes). */
export interface BankSnapshot {
  name: string;
  branch: string;
  account_type: string;
  account_number: string;
  holder: string;
}

export function bankSnapshot(bank: Config['bank'] | null): BankSnapshot | null {
  return bank ? { name: bank.name, branch: bank.branch, account_type: bank.accountType, account_number: bank.accountNumber, holder: bank.holder } : null;
}
