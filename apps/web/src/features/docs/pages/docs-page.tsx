import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE } from '@poi/shared/limits';
import { DataTable } from '../../../components/ui/data-table';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { apiClient } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { docsKeys } from '../api/keys';
import {
  boundsOf,
  curlExample,
  cursorWalkExample,
  errorsOf,
  fieldsOf,
  headersOf,
  samplesOf,
  javascriptExample,
  publicEndpoints,
  pythonExample,
  successSchemaOf,
  typeLabel,
  type Endpoint,
  type ExampleValue,
  type OpenApiDocument,
} from '../openapi-view';
import { PublicPage } from '../../../components/layout/public-page';

/**
 * Example values for the parameters the examples use; the names themselves come from the
 * document. The dataset and the key come from environment variables, so a pasted example runs.
 */
const EXAMPLE_VALUES: Record<string, ExampleValue> = {
  dataset_id: { env: 'POI_DATASET_ID' },
  keyword: 'カフェ',
  latitude: '35.681236',
  longitude: '139.767125',
  radius: '1000',
  limit: '20',
  // The type-ahead's typed prefix (GET /api/v1/poi/suggest requires q).
  q: 'shibu',
};

const th = 'px-3 py-2 text-left text-xs font-semibold text-gray-700';
const td = 'px-3 py-2 align-top';

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <h2 id={id} className="border-b border-gray-200 pb-2 text-xl font-bold text-gray-900">
        {title}
      </h2>
      <div className="mt-4 space-y-3 text-sm leading-relaxed text-gray-800">{children}</div>
    </section>
  );
}

function Code({ children, label }: { children: string; label: string }) {
  return (
    <pre aria-label={label} tabIndex={0} className="overflow-x-auto rounded-md bg-gray-900 p-4 font-mono text-xs leading-relaxed text-gray-100">
      {children}
    </pre>
  );
}

function Examples({ server, endpoint }: { server: string; endpoint: Endpoint }) {
  const [tab, setTab] = useState<'curl' | 'js' | 'python'>('curl');
  const params = (endpoint.operation.parameters ?? [])
    .filter((p) => p.in === 'query' && EXAMPLE_VALUES[p.name])
    .map((p) => [p.name, EXAMPLE_VALUES[p.name]!] as [string, ExampleValue]);
  const input = { server, path: endpoint.path, params };
  const tabs = [
    { id: 'curl', label: 'curl', code: curlExample(input) },
    { id: 'js', label: 'JavaScript', code: javascriptExample(input) },
    { id: 'python', label: 'Python', code: pythonExample(input) },
  ] as const;
  const current = tabs.find((t) => t.id === tab)!;
  const baseId = useId();
  const list = useRef<HTMLDivElement>(null);
  // WAI-ARIA tabs: one Tab stop for the list; ← → move and select, Home/End jump.
  const onKey = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length]!;
    setTab(target.id);
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(`${baseId}-${target.id}`)}`)?.focus();
  };
  return (
    <div>
      <div className="mb-3 rounded-md border border-blue-200 bg-blue-50 p-3 text-sm text-gray-900" data-testid="examples-env">
        <p className="font-medium">例を実行する前に、環境変数を2つ設定してください(どちらも必須です)</p>
        <ul className="mt-1 list-disc space-y-1 pl-5">
          <li>
            <code className="font-mono">POI_API_KEY</code>: APIキー。
            <a className="mx-1 text-blue-800 underline" href="/api-keys">
              APIキー管理
            </a>
            で発行できます。
          </li>
          <li>
            <code className="font-mono">POI_DATASET_ID</code>: 検索するデータセットのID。検索APIは dataset_id の指定が必須で、ないと 400
            になります。IDは
            <a className="mx-1 text-blue-800 underline" href="/marketplace">
              マーケットプレイス
            </a>
            のカードをクリックするとコピーできます(データセット詳細画面にも表示されます)。
          </li>
        </ul>
        <p className="mt-1 break-all">
          例: <code className="font-mono">export POI_API_KEY=poi_live_… POI_DATASET_ID=…</code>
          。未設定のまま実行すると、例はリクエストを送らずに何を設定すべきかを表示して止まります。キーをソースコードに直接書かないでください。
        </p>
      </div>
      <div ref={list} role="tablist" aria-label="コード例の言語" onKeyDown={onKey} className="flex gap-1 border-b border-gray-200">
        {tabs.map((t) => (
          <button
            key={t.id}
            id={`${baseId}-${t.id}`}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            aria-controls={`${baseId}-panel`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            className={`min-h-11 rounded-t-md px-4 py-2 text-sm font-medium ${tab === t.id ? 'border border-b-white border-gray-200 bg-white text-blue-800' : 'text-gray-700 hover:text-gray-900'}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${baseId}-panel`} aria-labelledby={`${baseId}-${tab}`} className="mt-2">
        <Code label={`${current.label} の例`}>{current.code}</Code>
      </div>
    </div>
  );
}

function EndpointDocs({ doc, endpoint }: { doc: OpenApiDocument; endpoint: Endpoint }) {
  const { operation } = endpoint;
  const server = doc.servers?.[0]?.url ?? window.location.origin;
  const fields = fieldsOf(successSchemaOf(operation));
  return (
    <>
      <Section id="endpoint" title="エンドポイント">
        <p>
          <code className="rounded bg-gray-100 px-2 py-1 font-mono font-semibold">
            {endpoint.method} {endpoint.path}
          </code>
        </p>
        <p className="font-medium">{operation.summary}</p>
        {operation.description ? <p>{operation.description}</p> : null}
      </Section>

      <Section id="parameters" title="パラメーター(クエリ文字列)">
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={operation.parameters ?? []}
          rowKey={(p) => `${p.in}-${p.name}`}
          columns={[
            { header: '名前', headerClassName: th, className: `${td} font-mono font-semibold`, cell: (p) => p.name },
            { header: '型', headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (p) => typeLabel(p.schema) },
            { header: '必須', headerClassName: th, className: `${td} whitespace-nowrap`, cell: (p) => (p.required ? '必須' : '任意') },
            { header: '範囲・既定値', headerClassName: th, className: td, cell: (p) => boundsOf(p.schema) },
            { header: '説明', headerClassName: th, className: td, cell: (p) => p.description ?? p.schema?.description ?? '' },
          ]}
        />
      </Section>

      <Section id="response" title="応答(200)">
        <p>{operation.responses?.['200']?.description}</p>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={fields}
          rowKey={(f) => f.path}
          columns={[
            { header: 'フィールド', headerClassName: th, className: `${td} break-all font-mono text-xs`, cell: (f) => f.path },
            { header: '型', headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (f) => f.type },
            { header: '説明', headerClassName: th, className: td, cell: (f) => f.description },
          ]}
        />
      </Section>

      <Section id="errors" title="エラー">
        <p>
          エラー時は <code className="font-mono">{'{ "success": false, "error": { "code", "message", "request_id" }, "errors": [{ "field", "message" }] }'}</code>{' '}
          を返します。message は日本語で、そのまま利用者に表示できます。errors は入力エラー(400)のときだけ付き、問題のあるパラメーター名(field)とその理由(message)を1件ずつ並べます。問い合わせの際は
          request_id(X-Request-Id ヘッダーと同じ値)をお知らせください。
        </p>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={errorsOf(operation)}
          rowKey={(e) => String(e.status)}
          columns={[
            { header: 'ステータス', headerClassName: th, className: `${td} font-mono`, cell: (e) => e.status },
            { header: 'コード', headerClassName: th, className: `${td} font-mono text-xs`, cell: (e) => e.code },
            { header: '発生する状況', headerClassName: th, className: td, cell: (e) => e.description },
          ]}
        />
      </Section>

      <Section id="headers" title="応答ヘッダー">
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={headersOf(operation)}
          rowKey={(h) => h.name}
          columns={[
            { header: 'ヘッダー', headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs font-semibold`, cell: (h) => h.name },
            { header: '付く応答', headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (h) => h.statuses.join(', ') },
            { header: '説明', headerClassName: th, className: td, cell: (h) => h.description },
          ]}
        />
        <p>すべての応答に CORS ヘッダー(Access-Control-Allow-Origin: *)が付き、上のヘッダーはブラウザーの JavaScript からも読めます。</p>
      </Section>

      <Section id="samples" title="応答例">
        {samplesOf(operation).map((sample) => (
          <div key={`${sample.status}-${sample.name}`}>
            <h3 className="mb-1 font-semibold text-gray-900">
              <span className="mr-2 font-mono">{sample.status}</span>
              {sample.summary}
            </h3>
            <Code label={`応答例 ${sample.status} ${sample.summary}`}>{sample.json}</Code>
          </div>
        ))}
      </Section>

      <Section id="paging" title="ページ送り">
        <p>
          並び順は常に一意です。緯度・経度を指定した検索は中心から近い順(同じ距離なら poi_id の昇順)、それ以外は登録の新しい順(同じ日時なら poi_id
          の降順)です。キーワードがあり地点がない検索は、名称がキーワードと一致するPOI、名称がキーワードで始まるPOI、その他の順に分け、それぞれの中で新しい順に並びます(「東京駅」では東京駅が東京駅前郵便局より先)。total はどのページでも同じ値で、{'100'}件までは正確に数え、超えると 100 を返して total_capped が true になります(キーワードも地点も指定しない一覧は件数の上限なく正確です)。
        </p>
        <ul className="list-disc space-y-1 pl-6">
          <li>
            <strong>offset</strong>:ページ番号で表示するとき。offset = (ページ番号 − 1) × limit。データが変わらない間は、全ページで各POIがちょうど1回ずつ返ります。
          </li>
          <li>
            <strong>cursor</strong>:全件をたどるとき。応答の next_cursor を同じ検索条件のまま cursor に指定すると続きを返し、最後のページでは next_cursor が null
            になります。途中でPOIが追加・削除されても、最初から最後まで存在したPOIは重複も欠落もなく1回ずつ返ります。cursor は検索条件(データセット・キーワード・地点・半径)に結び付いた署名付きの値で、条件を変えたり書き換えたりすると
            400 になります。limit はページごとに変えられます。cursor と offset は同時に指定できません。
          </li>
        </ul>
        <Code label="cursor で全件を取得する例(JavaScript)">{cursorWalkExample({ server, path: endpoint.path, params: [['dataset_id', { env: 'POI_DATASET_ID' }], ['keyword', 'カフェ']] })}</Code>
      </Section>

      <Section id="rules" title="パラメーターの扱い">
        <ul className="list-disc space-y-1 pl-6">
          <li>キーワードを空白(半角・全角)で区切ると、すべての語を含むPOIだけが該当します(例:「千代田 寿司」)。語はどの項目(名称・住所・カテゴリ・タグ)にあってもよく、順序も問いません。</li>
          <li>
            キーワードは表記の違いを区別しません:全角・半角、大文字・小文字、ひらがな・カタカナ(「かふぇ」→カフェ)、長音(「ラ-メン」→ラーメン)、小書きの仮名(「カフエ」→カフェ)、漢字の間のヶ・ケ・が(「霞が関」→霞ケ関)、主な異体字(「高崎屋」→髙﨑屋)、記号と名称中の空白(「セブンイレブン」→セブン-イレブン)、アクセント記号(「cafe」→Café)。名称は読みのひらがな・カタカナ・ローマ字でも探せます(「とうきょうたわー」「tokyo
            tower」→東京タワー)。読みは辞書による推定のため、読み方が複数ある名称では見つからない読みもあります。濁点の有無(ガとカ)や長音の有無(ビルとビール)は区別します。
          </li>
          <li>距離は平均地球半径 6,371,008.8 m の球面上の大圏距離(ハバーサイン式と同じ)です。半径の絞り込みと distance_m は同じ距離で計算します。</li>
          <li>数値は10進数で指定します(0x23 や 3.5e1 は 400)。空の値(limit= など)も 400 です。</li>
          <li>
            使えるのは表のパラメーターだけです。それ以外(lat、lng、q など)は、考えられる正しい名前を添えて 400
            になります。dataset_id 以外を2回指定した場合や、URLエンコード(%xx)が壊れている場合も 400 です。
          </li>
          <li>同じ dataset_id を複数回指定しても1件として扱い、検索料金も1回分です。</li>
          <li>
            GET 以外のメソッド(HEAD を含む)は 405(Allow: GET, OPTIONS)、/api/v1 の存在しないURLは 404 です。どちらも課金されません。エラーの errors[]
            には項目(field)ごとの理由が入ります。
          </li>
          <li>X-Request-Id ヘッダーに 8〜128 文字の英数字・._- を送ると、その値がこのリクエストのIDになり、応答の X-Request-Id と error.request_id に返ります。</li>
        </ul>
      </Section>

      <Section id="examples" title="リクエスト例">
        <Examples server={server} endpoint={endpoint} />
      </Section>
    </>
  );
}

/** /docs/api: the public API reference, rendered from the server's /openapi.json; no top bar or side menu. */
export function DocsPage() {
  usePageTitle('APIドキュメント');
  const spec = useQuery({
    queryKey: docsKeys.openapi(),
    queryFn: async () => (await apiClient.get<OpenApiDocument>('/openapi.json')).data,
    staleTime: Infinity,
  });
  const schemes = spec.data?.components?.securitySchemes ?? {};
  const headerScheme = Object.values(schemes).find((s) => s.type === 'apiKey');

  return (
    <PublicPage>
      <h1 className="text-3xl font-bold text-gray-900">POI Cloud 公開検索API</h1>
      <p className="mt-3 text-gray-800">
        POIデータセットをAPIキーで検索するREST APIです。応答はJSON(UTF-8)です。このページはサーバーの{' '}
        <a className="text-blue-800 underline" href="/openapi.json">
          OpenAPI定義(/openapi.json)
        </a>{' '}
        から生成しています。
      </p>
      <nav aria-label="目次" className="mt-6 rounded-lg border border-gray-200 bg-gray-50 p-4 text-sm">
        <ul className="flex flex-wrap gap-x-5 gap-y-1">
          {[
            ['auth', '認証'],
            ['endpoint', 'エンドポイント'],
            ['parameters', 'パラメーター'],
            ['response', '応答'],
            ['errors', 'エラー'],
            ['headers', '応答ヘッダー'],
            ['samples', '応答例'],
            ['paging', 'ページ送り'],
            ['rules', 'パラメーターの扱い'],
            ['rate-limits', 'レート制限'],
            ['billing', '課金'],
            ['examples', 'リクエスト例'],
          ].map(([id, label]) => (
            <li key={id}>
              <a href={`#${id}`} className="inline-flex min-h-6 items-center text-blue-800 underline">
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>

      <Section id="auth" title="認証">
        <p>
          コンソールの「APIキー管理」で作成したAPIキー(<code className="font-mono">poi_live_</code>{' '}
          で始まる文字列)を、次のどちらかのヘッダーで送ります。
        </p>
        <ul className="list-disc space-y-1 pl-6">
          <li>
            <code className="font-mono">{headerScheme?.name ?? 'X-API-Key'}: APIキー</code>
          </li>
          <li>
            <code className="font-mono">Authorization: Bearer APIキー</code>
          </li>
        </ul>
        <p>
          キーには有効期限、許可するIPアドレス(CIDR可)、許可するリファラーを設定できます。ローテーションすると新しいキーが発行され、古いキーは24時間後に使えなくなります。キーの末尾にはチェックサムがあり、写し間違えたキーはすぐに
          401 になります。
        </p>
      </Section>

      {spec.isPending ? <LoadingBlock label="API定義を読み込み中..." /> : null}
      {spec.isError ? <ErrorBlock message="API定義の取得に失敗しました" onRetry={() => void spec.refetch()} /> : null}
      {spec.data ? publicEndpoints(spec.data).map((e) => <EndpointDocs key={`${e.method} ${e.path}`} doc={spec.data} endpoint={e} />) : null}

      <Section id="rate-limits" title="レート制限">
        <p>
          1分あたりのリクエスト数はアカウント種別(プラン)ごとに決まっており、同じアカウントのAPIキーで共有されます。APIキーのないリクエストや無効なキーのリクエストは、送信元IPアドレスごとに1分あたり
          {UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE}回までです。
        </p>
        <ul className="list-disc space-y-1 pl-6">
          <li>
            <code className="font-mono">X-RateLimit-Limit</code>: 1分あたりの上限
          </li>
          <li>
            <code className="font-mono">X-RateLimit-Remaining</code>: 現在の1分間の残り回数
          </li>
          <li>
            <code className="font-mono">X-RateLimit-Reset</code>: 残り回数がリセットされるまでの秒数
          </li>
        </ul>
        <p>上限を超えると 429 と Retry-After ヘッダー(秒)を返します。その秒数待ってから再試行してください。</p>
      </Section>

      <Section id="billing" title="課金">
        <ul className="list-disc space-y-1 pl-6">
          <li>課金対象は成功した検索(HTTP 200)だけです。エラーになったリクエストは課金されません。</li>
          <li>1検索の料金は、指定したデータセットの「1検索あたりの価格」の合計と、プランの基本料金の合計です。料金は検索した時点の価格で記録され、後の価格変更で変わることはありません。</li>
          <li>毎月(日本時間)の無料検索回数の範囲では基本料金がかかりません。データセットの価格はかかります。</li>
          <li>トライアルアカウントは無料データセットのみ、毎月の無料検索回数まで検索できます。超えると 402 を返します。/upgrade からアップグレードしてください。</li>
          <li>使用量と料金はコンソールの「使用量」で、数秒以内に確認できます。</li>
        </ul>
      </Section>
    </PublicPage>
  );
}
