import { isUtf8 } from 'node:buffer';
import { parse } from 'csv-parse/sync';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import type { StatementProposal } from '@poi/shared/schemas/transfers';
import { AppError } from '../../lib/errors';
import { isValidCustomerNumber } from '../billing-accounts/customer-number';

/** One credit line of a bank statement: the day, the amount and the payer name as the bank shows it. */
export interface StatementRow {
  line: number;
  date: string;
  amount: number;
  payerName: string;
}

export const STATEMENT_MAX_BYTES = 1024 * 1024;
export const STATEMENT_MAX_ROWS = 5000;

const fail = (message: string) => new AppError('VALIDATION_ERROR', message);

/** 2026/12/01, 2026-12-01, 2026.12.01 and 20261201 → 2026-12-01 (a real day), else null. */
function dayOf(value: string): string | null {
  const m = /^(\d{4})[-/.]?(\d{1,2})[-/.]?(\d{1,2})$/.exec(value.normalize('NFKC').trim());
  if (!m) return null;
  const day = `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`;
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || !d.toISOString().startsWith(day) ? null : day;
}

/**
 * Reads a bank statement CSV (UTF-8 with or without BOM, else Shift_JIS as Japanese banks export
 * it): columns date, amount, payer name (kana), an optional header row. A malformed line is a
 * 400 naming its line number; nothing is matched from a file with any bad line.
 */
export function parseStatement(file: Buffer): StatementRow[] {
  if (file.length > STATEMENT_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', '入金明細のファイルは1MB以下にしてください');
  const text = new TextDecoder(isUtf8(file) ? 'utf-8' : 'shift_jis').decode(file).replace(/^\uFEFF/, '');
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw fail(`入金明細のCSVを読み取れません${line ? `(${line}行目)` : ''}`);
  }
  const rows: StatementRow[] = [];
  records.forEach((r, i) => {
    const line = i + 1;
    // A header row: its amount column is not a number (日付,金額,振込依頼人名 and the like).
    if (i === 0 && r.length >= 3 && !/\d/.test((r[1] ?? '').normalize('NFKC'))) return;
    if (r.length < 3) throw fail(`${line}行目: 日付・金額・振込依頼人名の3列が必要です`);
    const date = dayOf(r[0]!);
    if (!date) throw fail(`${line}行目: 日付「${r[0]}」を読み取れません(例: 2026/12/01)`);
    const amountText = r[1]!.normalize('NFKC').replace(/[,¥円\s]/g, '');
    const amount = Number(amountText);
    if (!/^\d+$/.test(amountText) || !Number.isSafeInteger(amount) || amount < 1) throw fail(`${line}行目: 金額「${r[1]}」は1円以上の整数で入力してください`);
    const payerName = r[2]!.trim();
    if (!payerName) throw fail(`${line}行目: 振込依頼人名が空です`);
    rows.push({ line, date, amount, payerName });
  });
  if (!rows.length) throw fail('入金明細に入金の行がありません');
  if (rows.length > STATEMENT_MAX_ROWS) throw fail(`入金明細は${STATEMENT_MAX_ROWS.toLocaleString('ja-JP')}行以下にしてください`);
  return rows;
}

/** The seven digits typed before the payer name (half or full width, spaces allowed), valid or not. */
function leadingNumber(payerName: string): string {
  const lead = /^[\s\d-]+/.exec(payerName.normalize('NFKC'))?.[0] ?? '';
  return lead.replace(/\D/g, '');
}

/** The お客様番号 typed before the payer name (half or full width, spaces allowed), if it is valid. */
export function customerNumberIn(payerName: string): string | null {
  const digits = leadingNumber(payerName);
  return digits.length === 7 && isValidCustomerNumber(digits) ? digits : null;
}

/** A number shaped like an お客様番号 (7 digits, not starting with 0) whose check digit is wrong: a typing mistake to report. */
function mistypedCustomerNumberIn(payerName: string): string | null {
  const digits = leadingNumber(payerName);
  return /^[1-9]\d{6}$/.test(digits) && !isValidCustomerNumber(digits) ? digits : null;
}

/**
 * Proposes, for each statement line, the open bank-transfer invoice it most likely pays
 * (docs/billing.md "Bank transfers"): the お客様番号 before the payer name names the customer (their
 * oldest open invoice, marked 'exact' when the amount equals what remains); without a number, an
 * amount equal to the remainder of exactly one open invoice is a weaker 'amount' proposal. Nothing
 * is booked: the admin confirms each proposal through the confirm call.
 */
export function proposeMatches(rows: StatementRow[], pending: PendingTransfer[]): StatementProposal[] {
  const byCustomer = new Map<string, PendingTransfer[]>();
  for (const p of [...pending].sort((a, b) => a.due_date.localeCompare(b.due_date) || a.invoice_number.localeCompare(b.invoice_number))) {
    byCustomer.set(p.customer_number, [...(byCustomer.get(p.customer_number) ?? []), p]);
  }
  return rows.map((r) => {
    const customerNumber = customerNumberIn(r.payerName);
    const base = { line: r.line, date: r.date, amount: r.amount, payer_name: r.payerName, customer_number: customerNumber };
    if (customerNumber) {
      const open = byCustomer.get(customerNumber) ?? [];
      const exact = open.find((p) => p.remaining === r.amount);
      const invoice = exact ?? open[0];
      if (invoice) {
        return {
          ...base,
          match: exact ? ('exact' as const) : ('customer_number' as const),
          invoice,
          difference: r.amount - invoice.remaining,
          reason: exact ? 'お客様番号と金額が一致します' : `お客様番号が一致します(金額の差 ${(r.amount - invoice.remaining).toLocaleString('ja-JP')}円)`,
        };
      }
      return { ...base, match: 'none' as const, invoice: null, difference: null, reason: 'このお客様番号に入金待ちの請求書はありません' };
    }
    // A mistyped number names nobody; the line falls back to its amount, and says why.
    const mistyped = mistypedCustomerNumberIn(r.payerName);
    const invalid = mistyped ? `お客様番号 ${mistyped} のチェックディジットが正しくありません` : null;
    const sameAmount = pending.filter((p) => p.remaining === r.amount);
    if (sameAmount.length === 1) {
      const reason = invalid ? `${invalid}。金額が一致する請求書が1件あります(振込名義をご確認ください)` : 'お客様番号がありません。金額が一致する請求書が1件あります(振込名義をご確認ください)';
      return { ...base, match: 'amount' as const, invoice: sameAmount[0]!, difference: 0, reason };
    }
    let reason = sameAmount.length ? `お客様番号がなく、同じ金額の請求書が${sameAmount.length}件あります` : 'お客様番号がなく、金額の一致する請求書もありません';
    if (invalid) reason = sameAmount.length ? `${invalid}(同じ金額の請求書が${sameAmount.length}件あります)` : `${invalid}(金額の一致する請求書もありません)`;
    return { ...base, match: 'none' as const, invoice: null, difference: null, reason };
  });
}
