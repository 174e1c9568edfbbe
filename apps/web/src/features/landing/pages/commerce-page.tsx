import { Link } from 'react-router';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { useCommerce } from '../api/commerce-api';
import { PublicPage } from '../../../components/layout/public-page';

/** /commerce: 特定商取引法に基づく表記, mounted alone (no shell): configured items plus fixed terms. */
export function CommercePage() {
  usePageTitle('特定商取引法に基づく表記');
  const commerce = useCommerce();
  let body;
  if (commerce.isPending) body = <LoadingBlock />;
  else if (commerce.isError) body = <ErrorBlock message={getErrorMessage(commerce.error, '表記の取得に失敗しました')} onRetry={() => void commerce.refetch()} />;
  else {
    const c = commerce.data;
    // Only what is configured is shown: an unset item is left out, never filled with a placeholder
    // or a claim nobody made (a registration number "being applied for").
    const configured: Array<[string, string | null]> = [
      ['販売事業者', c.seller],
      ['運営責任者', c.representative],
      ['所在地', c.address],
      ['電話番号', c.phone ? `${c.phone}${c.phone_hours ? `(受付時間: ${c.phone_hours})` : ''}` : null],
      ['メールアドレス', c.email],
      ['適格請求書発行事業者登録番号', c.registration_number],
    ];
    const rows: Array<[string, React.ReactNode]> = [
      ...configured.flatMap(([term, value]): Array<[string, React.ReactNode]> => (value ? [[term, value]] : [])),
      [
        '販売価格',
        <>
          検索1回ごとの従量課金(各データセットの価格とプラットフォーム基本料金)と月額料金。各プランの料金は
          <Link to="/upgrade" className="mx-1 text-blue-800 underline">
            アップグレード画面
          </Link>
          に表示します。消費者の方への表示価格は税込です(請求書では消費税10%を請求書ごとに計算します)。
        </>,
      ],
      ['商品代金以外の必要料金', '銀行振込の振込手数料(お客様のご負担)、インターネット接続の通信料'],
      ['支払方法', 'クレジットカード、銀行振込(法人の請求書払い)'],
      ['支払時期', 'クレジットカード: 毎月1日に前月分の請求書を発行した時点で決済します。銀行振込: 月末締め翌月末払い。'],
      ...(c.bank_account ? ([['振込先', c.bank_account]] as Array<[string, React.ReactNode]>) : []),
      ['役務の提供時期', 'カード登録の完了後、または法人のお申し込みの承認後、直ちにご利用いただけます。'],
      ['返品・キャンセル', 'サービスの性質上、提供済みの検索の返金には応じかねます。解約・ダウングレードは月末に反映されます。'],
      ['動作環境', '最新版の Google Chrome、Microsoft Edge、Mozilla Firefox、Safari。公開APIは HTTPS でご利用ください。'],
    ];
    body = (
      <>
        {!c.complete ? (
          <p role="status" className="mt-2 rounded-md bg-amber-50 p-3 text-sm text-amber-950">
            この表記は準備中です。掲載していない事項は、準備ができしだい掲載します。
          </p>
        ) : null}
        <dl className="mt-6 divide-y divide-gray-200 border-y border-gray-200">
          {rows.map(([term, value]) => (
            <div key={term} className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
              <dt className="font-medium text-gray-900">{term}</dt>
              <dd className="break-words text-gray-800 sm:col-span-2">{value}</dd>
            </div>
          ))}
        </dl>
      </>
    );
  }
  return (
    <PublicPage width="max-w-4xl">
      <h1 className="text-2xl font-bold text-gray-900">特定商取引法に基づく表記</h1>
      {body}
    </PublicPage>
  );
}
