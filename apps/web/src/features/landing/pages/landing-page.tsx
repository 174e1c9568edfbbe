import { Link } from 'react-router';
import { Coins, FileText, MapPin, Search, Store, TrendingUp } from 'lucide-react';
import { isAuthenticated, useAuth } from '../../../lib/auth-store';
import { usePageTitle } from '../../../lib/use-page-title';

const features = [
  { icon: Search, title: '日本語に強い検索', text: '全角・半角やカタカナの揺れを吸収し、名称・住所・カテゴリ・タグからPOIを探せます。' },
  { icon: MapPin, title: '地点からの半径検索', text: '緯度・経度と半径を指定すると、近い順に結果を返します。' },
  { icon: Store, title: 'データセットのマーケットプレイス', text: 'プラットフォームやデータプロバイダーが公開するPOIデータセットを選んで使えます。' },
  { icon: Coins, title: '検索ごとの従量課金', text: '成功した検索だけが課金対象。使用量と料金はコンソールでいつでも確認できます。' },
  { icon: TrendingUp, title: 'プロバイダーの収益化', text: 'データを公開したプロバイダーには、検索回数に応じた収益が分配されます。' },
  { icon: FileText, title: 'シンプルなAPI', text: 'APIキーを作成して、curl ひとつで検索を始められます。' },
];

export function LandingPage() {
  usePageTitle('POI Cloud — 日本のPOI検索API', true);
  const auth = useAuth();
  const signedIn = isAuthenticated(auth);
  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-gray-200">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-4">
          <span className="flex items-center gap-2 text-xl font-bold text-blue-800">
            <MapPin className="h-6 w-6" aria-hidden="true" />
            POI Cloud
          </span>
          <nav aria-label="サイト" className="flex items-center gap-2 text-sm sm:gap-4">
            <a href="/docs/api" className="inline-flex min-h-11 items-center text-gray-800 underline-offset-4 hover:underline">
              APIドキュメント
            </a>
            <Link
              to={signedIn ? '/dashboard' : '/auth/login'}
              className="rounded-md bg-blue-700 px-3 py-2 font-medium text-white hover:bg-blue-800 sm:px-4"
            >
              {signedIn ? 'ダッシュボード' : 'ログイン'}
            </Link>
          </nav>
        </div>
      </header>
      <main>
        <section className="bg-gradient-to-b from-blue-50 to-white">
          <div className="mx-auto max-w-6xl px-4 py-16 sm:py-24">
            <h1 className="text-3xl font-bold leading-tight text-gray-900 sm:text-5xl">
              日本のPOIを、
              <br className="sm:hidden" />
              速く・正確に検索。
            </h1>
            <p className="mt-6 max-w-2xl text-lg text-gray-800">
              POI Cloud は、店舗・施設・観光地などの地点情報(POI)データセットを公開・検索できるクラウドサービスです。
              APIキーひとつで、全国のPOIをキーワードや地点からの距離で検索できます。
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Link to={signedIn ? '/dashboard' : '/auth/login'} className="rounded-md bg-blue-700 px-5 py-3 font-medium text-white hover:bg-blue-800">
                {signedIn ? 'ダッシュボードへ' : 'ログイン・無料で始める'}
              </Link>
              <a href="/docs/api" className="rounded-md border border-gray-400 bg-white px-5 py-3 font-medium text-gray-900 hover:bg-gray-50">
                APIドキュメントを見る
              </a>
            </div>
          </div>
        </section>
        <section aria-labelledby="features" className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="features" className="text-2xl font-bold text-gray-900">
            できること
          </h2>
          <ul className="mt-8 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {features.map((f) => (
              <li key={f.title} className="rounded-lg border border-gray-200 p-5">
                <f.icon className="h-6 w-6 text-blue-700" aria-hidden="true" />
                <h3 className="mt-3 font-semibold text-gray-900">{f.title}</h3>
                <p className="mt-2 text-sm text-gray-700">{f.text}</p>
              </li>
            ))}
          </ul>
        </section>
      </main>
      <footer className="border-t border-gray-200">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-6 text-sm text-gray-700">
          <span>© POI Cloud</span>
          <a href="/commerce" className="inline-flex min-h-6 items-center underline-offset-4 hover:underline">
            特定商取引法に基づく表記
          </a>
        </div>
      </footer>
    </div>
  );
}
