import { Link } from 'react-router';
import { BarChart3, CheckCircle2, Circle, KeyRound, Store, Terminal } from 'lucide-react';

const shortcuts = [
  { to: '/api-keys', icon: KeyRound, title: 'APIキー', text: 'APIキーを作成して検索APIを呼び出します。' },
  { to: '/marketplace', icon: Store, title: '公開データセット', text: '検索できるPOIデータセットを探します。' },
  { to: '/usage', icon: BarChart3, title: '使用量', text: '今月の検索回数と料金を確認します。' },
];

function Step({ done, icon: Icon, title, children }: { done: boolean; icon: typeof KeyRound; title: string; children: React.ReactNode }) {
  return (
    <li className="flex gap-3">
      {done ? <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0 text-green-700" aria-label="完了" /> : <Circle className="mt-0.5 h-5 w-5 shrink-0 text-gray-500" aria-label="未完了" />}
      <div>
        <p className="flex items-center gap-2 font-medium text-gray-900">
          <Icon className="h-4 w-4 text-blue-700" aria-hidden="true" />
          {title}
        </p>
        <p className="mt-0.5 text-sm text-gray-700">{children}</p>
      </div>
    </li>
  );
}

/** The first-search steps, shown until the account has searched once. */
export function GettingStarted({ hasKey, hasSearched }: { hasKey: boolean; hasSearched: boolean }) {
  return (
    <section aria-labelledby="getting-started" className="rounded-lg border border-blue-200 bg-blue-50 p-5">
      <h2 id="getting-started" className="font-semibold text-gray-900">
        はじめての検索
      </h2>
      <ol className="mt-4 space-y-4">
        <Step done={hasKey} icon={KeyRound} title="1. APIキーを作成する">
          <Link to="/api-keys" className="text-blue-800 underline">
            APIキー管理
          </Link>{' '}
          で「APIキーを作成」を押します。キーは作成時に一度だけ表示されます。
        </Step>
        <Step done={hasSearched} icon={Terminal} title="2. curlコマンドをコピーして実行する">
          キーの表示画面に、そのまま実行できる検索コマンドが表示されます。コピーしてターミナルで実行してください。
        </Step>
        <Step done={hasSearched} icon={BarChart3} title="3. 使用量で検索を確認する">
          実行した検索は数秒以内に{' '}
          <Link to="/usage" className="inline-flex min-h-6 items-center text-blue-800 underline">
            使用量
          </Link>{' '}
          とこのダッシュボードに反映されます。
        </Step>
      </ol>
    </section>
  );
}

/** The console's main destinations as cards. */
export function Shortcuts() {
  return (
    <section aria-labelledby="shortcuts">
      <h2 id="shortcuts" className="sr-only">
        ショートカット
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
  );
}
