import { formatYen } from '@poi/shared/format';
import { amountsTable, button, escapeHtml, linkFallback, mailHtml, paragraph } from '../../lib/mail-layout';
import type { MailMessage } from '../../plugins/mail';

/** Whole yen as mails write it: '¥12,345'. */
const yenText = (n: number): string => formatYen(n, 0);

export interface BudgetAlertMailInput {
  to: string[];
  thresholdPct: number;
  limitYen: number;
  spentYen: number;
  hardStop: boolean;
  yearMonth: string;
  billingUrl: string;
}

/** The budget alert: the month's cost so far (tax included) reached a share of the budget. */
export function buildBudgetAlertMail(input: BudgetAlertMailInput): MailMessage {
  const [year, month] = input.yearMonth.split('-').map(Number) as [number, number];
  const reached = input.thresholdPct >= 100 ? '予算の上限に達しました' : `予算の${input.thresholdPct}%に達しました`;
  const stopNote =
    input.thresholdPct >= 100
      ? input.hardStop
        ? '上限到達時に停止する設定のため、公開検索APIの検索は停止しています(402 を返します)。'
        : '上限到達時に停止しない設定のため、検索は引き続きご利用いただけます(ご利用分は請求されます)。'
      : input.hardStop
        ? '上限に達すると公開検索APIの検索は停止します。'
        : '';
  const lines = [
    `${year}年${month}月のご利用額(税込)が${reached}。`,
    '',
    `今月のご利用額(税込): ${yenText(input.spentYen)}`,
    `月間予算: ${yenText(input.limitYen)}`,
    ...(stopNote ? ['', stopNote] : []),
    '',
    '予算の変更・ご利用状況の確認は次のページから行えます。',
    input.billingUrl,
    '',
    '— POI Cloud',
  ];
  const html = mailHtml([
    `<p>${year}年${month}月のご利用額(税込)が<strong>${escapeHtml(reached)}</strong>。</p>`,
    amountsTable([
      ['今月のご利用額(税込)', yenText(input.spentYen)],
      ['月間予算', yenText(input.limitYen)],
    ]),
    stopNote ? paragraph(stopNote) : '',
    button('請求・お支払いを開く', input.billingUrl),
    linkFallback(input.billingUrl),
  ]);
  return {
    to: input.to.join(', '),
    subject: `【POI Cloud】今月のご利用額が${reached}`,
    text: lines.join('\n'),
    html,
    logSummary: `budget alert ${input.thresholdPct}% — ${yenText(input.spentYen)} of ${yenText(input.limitYen)}`,
  };
}
