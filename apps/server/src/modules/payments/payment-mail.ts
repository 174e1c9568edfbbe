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

/** 3-D Secure needed: the customer pays on the hosted page behind the link. */
export function buildPayNowMail(to: string, inv: PaymentMailInvoice, url: string): MailMessage {
  const lines = [
    `${inv.addressee} ${inv.honorific}`,
    'POI Cloud をご利用いただきありがとうございます。',
    `請求書 ${inv.number} のご請求額 ${yen(inv.amountYen)} をご登録のカードでお支払いいただこうとしましたが、カード会社による本人認証(3Dセキュア)が必要なため、決済が完了しませんでした。`,
    '次のリンクからお支払いの手続きをお願いいたします。',
  ];
  const after = ['リンクの有効期限は24時間です。期限が切れた場合は、次回の再決済時に新しいリンクをお送りします。', '— POI Cloud'];
  const text = [...lines, '', url, '', ...after].join('\n');
  return {
    to,
    subject: `【POI Cloud】お支払い手続きのお願い(請求書 ${inv.number})`,
    text,
    html: wrap(lines, { label: 'お支払い手続きへ進む', url }, after),
    logSummary: `pay-now link for ${inv.number}: ${url}`,
  };
}

/** A declined charge: when it is tried again, or that the invoice is now overdue. */
export function buildDeclinedMail(to: string, inv: PaymentMailInvoice, reason: string, retryOn: string | null, billingUrl: string): MailMessage {
  const lines = [
    `${inv.addressee} ${inv.honorific}`,
    'POI Cloud をご利用いただきありがとうございます。',
    `請求書 ${inv.number} のご請求額 ${yen(inv.amountYen)} のカード決済ができませんでした。`,
    `理由: ${reason}`,
    retryOn
      ? `${retryOn} に同じカードで再度決済いたします。カードを変更される場合は、それまでにお支払い方法から新しいカードをご登録ください。`
      : 'カード決済の再試行を終了しました。お手数ですが、お支払い方法をご確認のうえ、お問い合わせください。',
  ];
  const text = [...lines, '', billingUrl, '', '— POI Cloud'].join('\n');
  return {
    to,
    subject: `【POI Cloud】カード決済ができませんでした(請求書 ${inv.number})`,
    text,
    html: wrap(lines, { label: '請求・お支払いを確認する', url: billingUrl }, ['— POI Cloud']),
    logSummary: `card declined for ${inv.number}`,
  };
}
