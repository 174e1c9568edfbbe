import { formatYen } from '@poi/shared/format';
import { detailsTable, mailHtml, paragraph, paragraphs, plainLink } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';
import type { InvoiceRow, PaymentRow } from '../invoices/invoices.mapper';

/** Whole yen as mails write it: '¥12,345'. */
const yen = (n: number): string => formatYen(n, 0);
const dateLabel = (d: string): string => `${d.slice(0, 4)}年${Number(d.slice(5, 7))}月${Number(d.slice(8, 10))}日`;

function render(subject: string, greeting: string, texts: string[], rows: Array<[string, string]>, link: string): { subject: string; text: string; html: string } {
  const text = [greeting, '', ...texts, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', link, '', '— POI Cloud'].join('\n');
  const html = mailHtml([paragraph(greeting), paragraphs(texts).join('\n'), detailsTable(rows), plainLink(link), paragraph('— POI Cloud')]);
  return { subject, text, html };
}

/** 「ご入金確認のお知らせ」(領収): a confirmed bank transfer, what remains or the credit kept. */
export function buildTransferReceiptMail(to: string, invoice: InvoiceRow, payment: PaymentRow, creditAdded: number, publicUrl: string): MailMessage {
  const recipient = invoice.recipientSnapshot as { addressee?: string; honorific?: string };
  const remaining = Math.max(0, invoice.totalYen - invoice.creditAppliedYen - invoice.paidYen);
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
  const m = render(`【POI Cloud】ご入金を確認しました(請求書 ${invoice.number})`, `${recipient.addressee ?? ''} ${recipient.honorific ?? ''}`.trim(), paragraphs, rows, `${publicUrl}/billing`);
  return { to, ...m, logSummary: `transfer receipt ${payment.receiptNumber} for ${invoice.number}` };
}

/** The applicant's corporate account is active (approved, or reactivated). */
export function buildCorporateActivatedMail(
  to: string,
  corp: { companyName: string; paymentMethod: 'card' | 'bank_transfer' },
  reactivated: boolean,
  publicUrl: string,
): MailMessage {
  const paragraphs = reactivated
    ? ['いつも POI Cloud をご利用いただきありがとうございます。', `${corp.companyName} 様の法人アカウントのご利用を再開しました。`]
    : [
        'POI Cloud の法人アカウントにお申し込みいただきありがとうございます。',
        `${corp.companyName} 様の法人アカウントのお申し込みを承認しました。本日からご利用いただけます。`,
        corp.paymentMethod === 'bank_transfer'
          ? 'ご利用料金は月末締めで翌月1日に請求書を発行し、翌月末までに銀行振込でお支払いいただきます(振込手数料はお客様ご負担)。'
          : 'ご利用料金は月末締めで翌月1日に請求書を発行し、ご登録のクレジットカードでお支払いいただきます。',
      ];
  const m = render(
    reactivated ? '【POI Cloud】法人アカウントのご利用を再開しました' : '【POI Cloud】法人アカウントのお申し込みを承認しました',
    `${corp.companyName} 御中`,
    paragraphs,
    [],
    `${publicUrl}/upgrade`,
  );
  return { to, ...m, logSummary: `corporate account ${reactivated ? 'reactivated' : 'approved'}: ${corp.companyName}` };
}
