import { formatYen } from '@poi/shared/format';
import type { Config } from '../../config';
import { button, detailsTable, mailHtml, paragraph, paragraphs } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';
import { remainingYen, type InvoiceRow } from './invoices.mapper';
import { bankTransferInstructions } from '../billing-accounts/bank-transfer';

/** Whole yen as mails write it: '¥12,345'. */
const yen = (n: number): string => formatYen(n, 0);
const monthLabel = (ym: string): string => `${ym.slice(0, 4)}年${Number(ym.slice(5, 7))}月`;
const dateLabel = (d: string): string => `${d.slice(0, 4)}年${Number(d.slice(5, 7))}月${Number(d.slice(8, 10))}日`;

/** 「請求書発行のお知らせ」: number, period, amounts, due date and how it is paid, with the link to /billing. */
export function buildInvoiceIssuedMail(to: string, invoice: InvoiceRow, config: Pick<Config, 'publicUrl' | 'bank'>): MailMessage {
  const recipient = invoice.recipientSnapshot as { addressee: string; honorific: string; customer_number: string };
  const due = remainingYen(invoice);
  const link = `${config.publicUrl}/billing`;
  const how: string[] = [];
  if (due <= 0) how.push('お預かりしているクレジット(過入金分)で全額お支払い済みです。お手続きは不要です。');
  else if (invoice.paymentMethod === 'card') how.push('ご登録のクレジットカードで本日お支払い手続きを行います。');
  else {
    how.push(`お支払期限(${dateLabel(invoice.dueDate!)})までに下記口座へお振り込みください。`);
    const bank = bankTransferInstructions(config.bank, recipient.customer_number);
    if (bank) {
      how.push(`振込先: ${bank.bank_name} ${bank.branch_name} ${bank.account_type} ${bank.account_number} ${bank.account_holder}`);
      how.push(...bank.notes);
    }
  }
  const rows: Array<[string, string]> = [
    ['請求書番号', invoice.number ?? ''],
    ['対象期間', `${dateLabel(invoice.periodStart)}〜${dateLabel(invoice.periodEnd)}`],
    ['発行日', dateLabel(invoice.issueDate ?? '')],
    ['小計(税抜)', yen(invoice.subtotalYen)],
    ['消費税(10%)', yen(invoice.taxYen)],
    ['ご請求金額(税込)', yen(invoice.totalYen)],
    ...(invoice.creditAppliedYen > 0 ? ([['クレジット充当', `-${yen(invoice.creditAppliedYen)}`]] as Array<[string, string]>) : []),
    ['お支払期限', dateLabel(invoice.dueDate ?? '')],
    ['お客様番号', recipient.customer_number],
  ];
  const subject = `【POI Cloud】${monthLabel(invoice.yearMonth)}分の請求書を発行しました(${invoice.number})`;
  const text = [
    `${recipient.addressee} ${recipient.honorific}`,
    '',
    'いつも POI Cloud をご利用いただきありがとうございます。',
    `${monthLabel(invoice.yearMonth)}分のご利用料金の請求書を発行しました。`,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    ...how,
    '',
    '請求書の詳細とPDFは次のページからご確認いただけます。',
    link,
    '',
    '— POI Cloud',
  ].join('\n');
  const html = mailHtml([
    paragraph(`${recipient.addressee} ${recipient.honorific}`),
    paragraph(['いつも POI Cloud をご利用いただきありがとうございます。', `${monthLabel(invoice.yearMonth)}分のご利用料金の請求書を発行しました。`]),
    detailsTable(rows),
    paragraphs(how).join('\n'),
    button('請求書を確認する', link),
  ]);
  return { to, subject, text, html, logSummary: `invoice ${invoice.number} issued, total ${invoice.totalYen} yen` };
}
