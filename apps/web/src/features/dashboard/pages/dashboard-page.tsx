import { Link } from 'react-router';
import { BarChart3, KeyRound, Store } from 'lucide-react';
import { PageHeader } from '../../../components/ui/page-header';
import { useAuth } from '../../../lib/auth-store';

const shortcuts = [
  { to: '/api-keys', icon: KeyRound, title: 'APIキー', text: 'APIキーを作成して検索APIを呼び出します。' },
  { to: '/marketplace', icon: Store, title: '公開データセット', text: '検索できるPOIデータセットを探します。' },
  { to: '/usage', icon: BarChart3, title: '使用量', text: '今月の検索回数と料金を確認します。' },
];

export function DashboardPage() {
  const { user } = useAuth();
  const name = user?.display_name?.trim() || user?.email || 'ゲスト';
  return (
    <div>
      <PageHeader title="ダッシュボード" description={`ようこそ、${name} さん。`} />
      <section aria-labelledby="shortcuts">
        <h2 id="shortcuts" className="sr-only">
          はじめに
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {shortcuts.map((s) => (
            <li key={s.to}>
              <Link to={s.to} className="block h-full rounded-lg border border-gray-200 bg-white p-5 hover:border-blue-400 hover:shadow-sm">
                <s.icon className="h-6 w-6 text-blue-700" aria-hidden="true" />
                <h3 className="mt-3 font-semibold text-gray-900">{s.title}</h3>
                <p className="mt-1 text-sm text-gray-700">{s.text}</p>
              </Link>
            </li>
          ))}
        </ul>
      </section>
      <section className="mt-8 rounded-lg border border-gray-200 bg-white p-5" aria-labelledby="month">
        <h2 id="month" className="font-semibold text-gray-900">
          今月の利用状況
        </h2>
        <p className="mt-2 text-sm text-gray-700">準備中: 検索回数・料金・無料枠の残りは、APIキーと使用量の機能とあわせて表示します。</p>
      </section>
    </div>
  );
}
