import { PublicPage } from '../components/public-page';
import { usePageTitle } from '../../../lib/use-page-title';

const rows: Array<[string, string]> = [
  ['販売事業者', 'POI Cloud 運営事業者(正式名称は準備中)'],
  ['所在地', '請求があった場合に遅滞なく開示します'],
  ['連絡先', 'お問い合わせはコンソールのサポート窓口(準備中)から承ります'],
  ['販売価格', '検索1回ごとの従量課金。各データセットの価格とプラットフォーム基本料金はコンソールに表示します'],
  ['支払方法', 'クレジットカード、銀行振込(法人アカウント)'],
  ['支払時期', '毎月末締め、翌月請求'],
  ['役務の提供時期', 'APIキーの発行後ただちに'],
  ['返品・キャンセル', 'サービスの性質上、提供済みの検索の返金には応じかねます'],
];

/** /commerce: the legal notice, mounted alone (no shell). Its final wording comes with billing. */
export function CommercePage() {
  usePageTitle('特定商取引法に基づく表記');
  return (
    <PublicPage width="max-w-4xl">
      <h1 className="text-2xl font-bold text-gray-900">特定商取引法に基づく表記</h1>
      <p className="mt-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900">準備中: 正式な表記は請求機能の公開時に掲載します。</p>
      <dl className="mt-6 divide-y divide-gray-200 border-y border-gray-200">
        {rows.map(([term, value]) => (
          <div key={term} className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
            <dt className="font-medium text-gray-900">{term}</dt>
            <dd className="text-gray-800 sm:col-span-2">{value}</dd>
          </div>
        ))}
      </dl>
    </PublicPage>
  );
}
