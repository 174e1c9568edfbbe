import { noticeMail } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';

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
  const m = noticeMail(
    reactivated ? '【POI Cloud】法人アカウントのご利用を再開しました' : '【POI Cloud】法人アカウントのお申し込みを承認しました',
    `${corp.companyName} 御中`,
    paragraphs,
    [],
    `${publicUrl}/upgrade`,
  );
  return { to, ...m, logSummary: `corporate account ${reactivated ? 'reactivated' : 'approved'}: ${corp.companyName}` };
}
