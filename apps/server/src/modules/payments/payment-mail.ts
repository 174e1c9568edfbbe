import { formatYen } from '@poi/shared/format';
import { button, linkFallback, mailHtml, paragraphs } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';

/** Whole yen as mails write it: '¥12,345'. */
const yen = (n: number) => formatYen(n, 0);

export interface PaymentMailInvoice {
  number: string;
  amountYen: number;
  addressee: string;
  honorific: string;
}

function wrap(texts: string[], link: { label: string; url: string }, after: string[]): string {
  return mailHtml([paragraphs(texts).join('\n'), button(link.label, link.url), linkFallback(link.url), paragraphs(after).join('\n')]);
}

/**
 * 3-D Secure needed: the customer pays on the hosted page behind the link; once it has expired,
 * the invoice page's 「今すぐ支払う」 opens a new one (no further link is mailed).
 */
export function buildPayNowMail(to: string, inv: PaymentMailInvoice, url: string, invoiceUrl: string): MailMessage {
  const lines = [
    `${inv.addressee} ${inv.honorific}`,
    'POI Cloud をご利用いただきありがとうございます。',
    `請求書 ${inv.number} のご請求額 ${yen(inv.amountYen)} をご登録のカードでお支払いいただこうとしましたが、カード会社による本人認証(3Dセキュア)が必要なため、決済が完了しませんでした。`,
    '次のリンクからお支払いの手続きをお願いいたします。',
  ];
  const after = [
    'リンクの有効期限は24時間です。期限が切れた後は、請求書のページの「今すぐ支払う」ボタンからお支払いいただけます。',
    `請求書のページ: ${invoiceUrl}`,
    '— POI Cloud',
  ];
  const text = [...lines, '', url, '', ...after].join('\n');
  return {
    to,
    subject: `【POI Cloud】お支払い手続きのお願い(請求書 ${inv.number})`,
    text,
    html: wrap(lines, { label: 'お支払い手続きへ進む', url }, after),
    logSummary: `pay-now link for ${inv.number}: ${url}`,
  };
}

/**
 * A declined charge: when it is tried again, or that the invoice is now overdue; either way how to
 * pay at once (the invoice page's 「今すぐ支払う」, or saving another card, which is charged at once).
 */
export function buildDeclinedMail(to: string, inv: PaymentMailInvoice, reason: string, retryOn: string | null, invoiceUrl: string): MailMessage {
  const lines = [
    `${inv.addressee} ${inv.honorific}`,
    'POI Cloud をご利用いただきありがとうございます。',
    `請求書 ${inv.number} のご請求額 ${yen(inv.amountYen)} のカード決済ができませんでした。`,
    `理由: ${reason}`,
    ...(retryOn
      ? [
          `${retryOn} に同じカードで再度決済いたします。`,
          'それより前にお支払いいただく場合は、請求書のページの「今すぐ支払う」ボタンから別のカードでお支払いいただくか、お支払い方法から新しいカードをご登録ください(ご登録のカードで直ちに決済いたします)。',
        ]
      : [
          'カード決済の再試行をすべて終了したため、この請求書は支払期限超過となりました。自動での再決済は行いません。',
          'お手数ですが、請求書のページの「今すぐ支払う」ボタンからカードでお支払いいただくか、お支払い方法から別のカードをご登録ください(ご登録のカードで直ちに決済いたします)。',
        ]),
  ];
  const text = [...lines, '', invoiceUrl, '', '— POI Cloud'].join('\n');
  return {
    to,
    subject: retryOn ? `【POI Cloud】カード決済ができませんでした(請求書 ${inv.number})` : `【POI Cloud】お支払い期限を過ぎています(請求書 ${inv.number})`,
    text,
    html: wrap(lines, { label: '請求書を開いてお支払い', url: invoiceUrl }, ['— POI Cloud']),
    logSummary: retryOn ? `card declined for ${inv.number}` : `card declined for ${inv.number}; overdue`,
  };
}
