import { formatYen } from '@poi/shared/format';
import { noticeMail } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';
import { remainingYen, type InvoiceRow, type PaymentRow } from '../invoices/invoices.mapper';

/** Whole yen as mails write it: '¥12,345'. */
const yen = (n: number): string => formatYen(n, 0);
const dateLabel = (d: string): string => `${d.slice(0, 4)}年${Number(d.slice(5, 7))}月${Number(d.slice(8, 10))}日`;

/** 「ご入金確認のお知らせ」(領収): a confirmed bank transfer, what remains or the credit kept. */
export function buildTransferReceiptMail(to: string, invoice: InvoiceRow, payment: PaymentRow, creditAdded: number, publicUrl: string): MailMessage {
  const recipient = invoice.recipientSnapshot as { addressee?: string; honorific?: string };
  const remaining = remainingYen(invoice);
  const paragraphs = ['いつも POI Cloud をご利用いただきありがとうございます。', `請求書 ${invoice.number} へのお振込みを確認いたしました。`];
  if (remaining > 0) paragraphs.push(`残額 ${yen(remaining)} のお振込みをお願いいたします。`);
  else paragraphs.push('この請求書のお支払いは完了しました。');
  if (creditAdded > 0) paragraphs.push(`ご請求額を超えてお振り込みいただいた ${yen(creditAdded)} はクレジットとしてお預かりし、次回の請求書に充当いたします。`);
  if (payment.feeYen > 0) paragraphs.push(`不足額 ${yen(payment.feeYen)} は振込手数料として処理いたしました。`);
  paragraphs.push('領収書(PDF)は請求・お支払いのページからダウンロードいただけます。');
  const rows: Array<[string, string]> = [
    ['領収番号', payment.receiptNumber],
    ['請求書番号', invoice.number ?? ''],
    ['入金日', dateLabel(payment.receivedOn)],
    ['入金額', yen(payment.amountYen)],
    ['ご請求金額(税込)', yen(invoice.totalYen)],
    ['残額', yen(remaining)],
  ];
  const m = noticeMail(`【POI Cloud】ご入金を確認しました(請求書 ${invoice.number})`, `${recipient.addressee ?? ''} ${recipient.honorific ?? ''}`.trim(), paragraphs, rows, `${publicUrl}/billing`);
  return { to, ...m, logSummary: `transfer receipt ${payment.receiptNumber} for ${invoice.number}` };
}
