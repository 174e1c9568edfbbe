import type { ReactNode } from 'react';
import type { DocsLanguage } from './openapi-view';

/*
 * The hand-written texts of /docs/api (Japanese) and /docs/api?lang=en (English). The reference's
 * own texts (summaries, parameters, errors, samples) come from /openapi.json or, in English,
 * /openapi.json?lang=en. Both languages have every key (the type says so): a text added in
 * Japanese needs its English here too, and the English page's browser check fails on Japanese.
 */

const code = (text: string) => <code className="font-mono">{text}</code>;
const link = (href: string, text: string) => (
  <a className="mx-1 text-blue-800 underline" href={href}>
    {text}
  </a>
);

export interface DocsText {
  pageTitle: string;
  heading: string;
  intro: ReactNode;
  /** The link to the other language's page. */
  switchTo: { href: string; label: string; lang: DocsLanguage };
  tocLabel: string;
  toc: Record<'auth' | 'endpoint' | 'parameters' | 'response' | 'errors' | 'headers' | 'samples' | 'paging' | 'rules' | 'rate-limits' | 'billing' | 'examples' | 'sdk', string>;
  sections: {
    auth: string;
    endpoint: string;
    parameters: string;
    response: string;
    errors: string;
    headers: string;
    samples: string;
    paging: string;
    rules: string;
    rateLimits: string;
    billing: string;
    examples: string;
  };
  columns: {
    name: string;
    type: string;
    required: string;
    bounds: string;
    description: string;
    field: string;
    status: string;
    code: string;
    when: string;
    header: string;
    sentWith: string;
  };
  required: string;
  optional: string;
  authIntro: ReactNode;
  authKeyValue: string;
  authRules: ReactNode;
  errorsIntro: ReactNode;
  corsNote: string;
  sampleLabel: (status: string, summary: string) => string;
  pagingIntro: ReactNode;
  pagingOffset: ReactNode;
  pagingCursor: ReactNode;
  cursorExampleLabel: string;
  rules: ReactNode[];
  loading: string;
  loadFailed: string;
  rateLimitsIntro: (perMinute: number) => ReactNode;
  rateHeaders: Array<[string, string]>;
  rateRetry: string;
  billing: ReactNode[];
  envTitle: string;
  envKey: ReactNode;
  envDataset: ReactNode;
  envExample: ReactNode;
  tabsLabel: string;
  exampleLabel: (language: string) => string;
  exampleKeyword: string;
  sdkIntro: ReactNode;
  sdkItems: ReactNode[];
  sdkExampleLabel: string;
  sdkRun: ReactNode;
}

const ja: DocsText = {
  pageTitle: 'APIドキュメント',
  heading: 'POI Cloud 公開検索API',
  intro: (
    <>
      POIデータセットをAPIキーで検索するREST APIです。応答はJSON(UTF-8)です。このページはサーバーの{' '}
      <a className="text-blue-800 underline" href="/openapi.json">
        OpenAPI定義(/openapi.json)
      </a>{' '}
      から生成しています。
    </>
  ),
  switchTo: { href: '/docs/api?lang=en', label: 'English', lang: 'en' },
  tocLabel: '目次',
  toc: {
    auth: '認証',
    endpoint: 'エンドポイント',
    parameters: 'パラメーター',
    response: '応答',
    errors: 'エラー',
    headers: '応答ヘッダー',
    samples: '応答例',
    paging: 'ページ送り',
    rules: 'パラメーターの扱い',
    'rate-limits': 'レート制限',
    billing: '課金',
    examples: 'リクエスト例',
    sdk: 'TypeScript SDK',
  },
  sections: {
    auth: '認証',
    endpoint: 'エンドポイント',
    parameters: 'パラメーター(クエリ文字列)',
    response: '応答(200)',
    errors: 'エラー',
    headers: '応答ヘッダー',
    samples: '応答例',
    paging: 'ページ送り',
    rules: 'パラメーターの扱い',
    rateLimits: 'レート制限',
    billing: '課金',
    examples: 'リクエスト例',
  },
  columns: {
    name: '名前',
    type: '型',
    required: '必須',
    bounds: '範囲・既定値',
    description: '説明',
    field: 'フィールド',
    status: 'ステータス',
    code: 'コード',
    when: '発生する状況',
    header: 'ヘッダー',
    sentWith: '付く応答',
  },
  required: '必須',
  optional: '任意',
  authIntro: (
    <>
      コンソールの「APIキー管理」で作成したAPIキー(<code className="font-mono">poi_live_</code> で始まる文字列)を、次のどちらかのヘッダーで送ります。
    </>
  ),
  authKeyValue: 'APIキー',
  authRules: (
    <>
      キーには有効期限、許可するIPアドレス(CIDR可)、許可するリファラーを設定できます。ローテーションすると新しいキーが発行され、古いキーは24時間後に使えなくなります。キーの末尾にはチェックサムがあり、写し間違えたキーはすぐに
      401 になります。
    </>
  ),
  errorsIntro: (
    <>
      エラー時は {code('{ "success": false, "error": { "code", "message", "request_id" }, "errors": [{ "field", "message" }] }')}{' '}
      を返します。message は日本語で、そのまま利用者に表示できます(Accept-Language: en を送ると英語になります。code と errors の
      field は同じです)。errors は入力エラー(400)のときだけ付き、問題のあるパラメーター名(field)とその理由(message)を1件ずつ並べます。問い合わせの際は
      request_id(X-Request-Id ヘッダーと同じ値)をお知らせください。
    </>
  ),
  corsNote: 'すべての応答に CORS ヘッダー(Access-Control-Allow-Origin: *)が付き、上のヘッダーはブラウザーの JavaScript からも読めます。',
  sampleLabel: (status, summary) => `応答例 ${status} ${summary}`,
  pagingIntro: (
    <>
      並び順は常に一意です。緯度・経度を指定した検索は中心から近い順(同じ距離なら poi_id の昇順)、それ以外は登録の新しい順(同じ日時なら poi_id
      の降順)です。キーワードがあり地点がない検索は、名称がキーワードと一致するPOI、名称がキーワードで始まるPOI、その他の順に分け、それぞれの中で新しい順に並びます(「東京駅」では東京駅が東京駅前郵便局より先)。total はどのページでも同じ値で、{'100'}件までは正確に数え、超えると 100 を返して total_capped が true になります(キーワードも地点も指定しない一覧は件数の上限なく正確です)。
    </>
  ),
  pagingOffset: (
    <>
      <strong>offset</strong>:ページ番号で表示するとき。offset = (ページ番号 − 1) × limit。データが変わらない間は、全ページで各POIがちょうど1回ずつ返ります。
    </>
  ),
  pagingCursor: (
    <>
      <strong>cursor</strong>:全件をたどるとき。応答の next_cursor を同じ検索条件のまま cursor に指定すると続きを返し、最後のページでは next_cursor が null
      になります。途中でPOIが追加・削除されても、最初から最後まで存在したPOIは重複も欠落もなく1回ずつ返ります。cursor は検索条件(データセット・キーワード・地点・半径)に結び付いた署名付きの値で、条件を変えたり書き換えたりすると
      400 になります。limit はページごとに変えられます。cursor と offset は同時に指定できません。
    </>
  ),
  cursorExampleLabel: 'cursor で全件を取得する例(JavaScript)',
  rules: [
    <>キーワードを空白(半角・全角)で区切ると、すべての語を含むPOIだけが該当します(例:「千代田 寿司」)。語はどの項目(名称・住所・カテゴリ・タグ)にあってもよく、順序も問いません。</>,
    <>
      キーワードは表記の違いを区別しません:全角・半角、大文字・小文字、ひらがな・カタカナ(「かふぇ」→カフェ)、長音(「ラ-メン」→ラーメン)、小書きの仮名(「カフエ」→カフェ)、漢字の間のヶ・ケ・が(「霞が関」→霞ケ関)、主な異体字(「高崎屋」→髙﨑屋)、記号と名称中の空白(「セブンイレブン」→セブン-イレブン)、アクセント記号(「cafe」→Café)。名称は読みのひらがな・カタカナ・ローマ字でも探せます(「とうきょうたわー」「tokyo
      tower」→東京タワー)。読みは辞書による推定のため、読み方が複数ある名称では見つからない読みもあります。濁点の有無(ガとカ)や長音の有無(ビルとビール)は区別します。
    </>,
    <>距離は平均地球半径 6,371,008.8 m の球面上の大圏距離(ハバーサイン式と同じ)です。半径の絞り込みと distance_m は同じ距離で計算します。</>,
    <>数値は10進数で指定します(0x23 や 3.5e1 は 400)。空の値(limit= など)も 400 です。</>,
    <>
      使えるのは表のパラメーターだけです。それ以外(lat、lng、q など)は、考えられる正しい名前を添えて 400
      になります。dataset_id 以外を2回指定した場合や、URLエンコード(%xx)が壊れている場合も 400 です。
    </>,
    <>同じ dataset_id を複数回指定しても1件として扱い、検索料金も1回分です。</>,
    <>
      GET 以外のメソッド(HEAD を含む)は 405(Allow: GET, OPTIONS)、/api/v1 の存在しないURLは 404 です。どちらも課金されません。エラーの errors[]
      には項目(field)ごとの理由が入ります。
    </>,
    <>X-Request-Id ヘッダーに 8〜128 文字の英数字・._- を送ると、その値がこのリクエストのIDになり、応答の X-Request-Id と error.request_id に返ります。</>,
  ],
  loading: 'API定義を読み込み中...',
  loadFailed: 'API定義の取得に失敗しました',
  rateLimitsIntro: (perMinute) => (
    <>
      1分あたりのリクエスト数はアカウント種別(プラン)ごとに決まっており、同じアカウントのAPIキーで共有されます。APIキーのないリクエストや無効なキーのリクエストは、送信元IPアドレスごとに1分あたり
      {perMinute}回までです。
    </>
  ),
  rateHeaders: [
    ['X-RateLimit-Limit', '1分あたりの上限'],
    ['X-RateLimit-Remaining', '現在の1分間の残り回数'],
    ['X-RateLimit-Reset', '残り回数がリセットされるまでの秒数'],
  ],
  rateRetry: '上限を超えると 429 と Retry-After ヘッダー(秒)を返します。その秒数待ってから再試行してください。',
  billing: [
    <>課金対象は成功した検索(HTTP 200)だけです。エラーになったリクエストは課金されません。</>,
    <>1検索の料金は、指定したデータセットの「1検索あたりの価格」の合計と、プランの基本料金の合計です。料金は検索した時点の価格で記録され、後の価格変更で変わることはありません。</>,
    <>毎月(日本時間)の無料検索回数の範囲では基本料金がかかりません。データセットの価格はかかります。</>,
    <>トライアルアカウントは無料データセットのみ、毎月の無料検索回数まで検索できます。超えると 402 を返します。/upgrade からアップグレードしてください。</>,
    <>使用量と料金はコンソールの「使用量」で、数秒以内に確認できます。</>,
  ],
  envTitle: '例を実行する前に、環境変数を2つ設定してください(どちらも必須です)',
  envKey: (
    <>
      <code className="font-mono">POI_API_KEY</code>: APIキー。{link('/api-keys', 'APIキー管理')}で発行できます。
    </>
  ),
  envDataset: (
    <>
      <code className="font-mono">POI_DATASET_ID</code>: 検索するデータセットのID。検索APIは dataset_id の指定が必須で、ないと 400 になります。IDは
      {link('/marketplace', 'マーケットプレイス')}
      のカードをクリックするとコピーできます(データセット詳細画面にも表示されます)。
    </>
  ),
  envExample: (
    <>
      例: <code className="font-mono">export POI_API_KEY=poi_live_… POI_DATASET_ID=…</code>
      。未設定のまま実行すると、例はリクエストを送らずに何を設定すべきかを表示して止まります。キーをソースコードに直接書かないでください。
    </>
  ),
  tabsLabel: 'コード例の言語',
  exampleLabel: (language) => `${language} の例`,
  exampleKeyword: 'カフェ',
  sdkIntro: (
    <>
      TypeScript・JavaScript(ESM、Node.js 20 以上とブラウザー)からは、型付きのSDK <code className="font-mono">@poi/sdk</code>{' '}
      を使えます。型はこのページと同じOpenAPI定義から生成しており、パラメーター名の誤りや応答の項目はエディターとコンパイラーが検査します。
    </>
  ),
  sdkItems: [
    <>
      <code className="font-mono">search(params)</code> は1ページ分、<code className="font-mono">searchAll(params)</code> は next_cursor
      をたどって全件を1件ずつ返します(<code className="font-mono">for await</code>)。1ページが1検索として課金されます。
    </>,
    <>
      <code className="font-mono">suggest(params)</code> は入力補完の候補、<code className="font-mono">searchGeoJson(params)</code> は同じページを GeoJSON
      の FeatureCollection で返します。<code className="font-mono">fields: [&apos;name&apos;, …]</code> を指定すると、POIの型もその項目だけになります。
    </>,
    <>
      429・503 は Retry-After(秒または日時)の分だけ待って再試行します(既定は2回まで、<code className="font-mono">maxRetries</code>{' '}
      で変更)。それ以外のエラーは再試行しません。
    </>,
    <>
      エラーは <code className="font-mono">PoiApiError</code>(status・code・message・errors・requestId)として投げられ、種類ごとに
      PoiValidationError(400)・PoiAuthError(401)・PoiNotFoundError(404)・PoiRateLimitError(429)・PoiUnavailableError(503)になります。
      <code className="font-mono">language: &apos;en&apos;</code> でメッセージが英語になります。
    </>,
  ],
  sdkExampleLabel: 'TypeScript SDK の例',
  sdkRun: (
    <>
      上の例は、環境変数を設定したうえで <code className="font-mono">sample.mts</code> として保存し、
      <code className="font-mono">npx tsx sample.mts</code> で実行できます。
    </>
  ),
};

const en: DocsText = {
  pageTitle: 'API reference',
  heading: 'POI Cloud public search API',
  intro: (
    <>
      A REST API for searching POI datasets with an API key. Answers are JSON (UTF-8). This page is generated from the server&apos;s{' '}
      <a className="text-blue-800 underline" href="/openapi.json?lang=en">
        OpenAPI document (/openapi.json?lang=en)
      </a>
      .
    </>
  ),
  switchTo: { href: '/docs/api', label: '日本語', lang: 'ja' },
  tocLabel: 'Contents',
  toc: {
    auth: 'Authentication',
    endpoint: 'Endpoint',
    parameters: 'Parameters',
    response: 'Response',
    errors: 'Errors',
    headers: 'Response headers',
    samples: 'Sample answers',
    paging: 'Paging',
    rules: 'Parameter rules',
    'rate-limits': 'Rate limits',
    billing: 'Billing',
    examples: 'Request examples',
    sdk: 'TypeScript SDK',
  },
  sections: {
    auth: 'Authentication',
    endpoint: 'Endpoint',
    parameters: 'Parameters (query string)',
    response: 'Response (200)',
    errors: 'Errors',
    headers: 'Response headers',
    samples: 'Sample answers',
    paging: 'Paging',
    rules: 'Parameter rules',
    rateLimits: 'Rate limits',
    billing: 'Billing',
    examples: 'Request examples',
  },
  columns: {
    name: 'Name',
    type: 'Type',
    required: 'Required',
    bounds: 'Range, default',
    description: 'Description',
    field: 'Field',
    status: 'Status',
    code: 'Code',
    when: 'When',
    header: 'Header',
    sentWith: 'Sent with',
  },
  required: 'required',
  optional: 'optional',
  authIntro: (
    <>
      Send an API key created in the console under API keys (a string starting with <code className="font-mono">poi_live_</code>) in either of these headers.
    </>
  ),
  authKeyValue: 'API key',
  authRules: (
    <>
      A key can have an expiry date, allowed IP addresses (CIDR too) and allowed referrers. Rotating a key issues a new one; the old key stops working 24 hours later. A key ends with
      a checksum, so a mistyped key gets a 401 at once.
    </>
  ),
  errorsIntro: (
    <>
      Errors answer {code('{ "success": false, "error": { "code", "message", "request_id" }, "errors": [{ "field", "message" }] }')}. Send{' '}
      {code('Accept-Language: en')} for English messages (Japanese is the default; the status, code and the fields of errors are the same in both languages); they
      can be shown to users as they are. errors is present only for invalid input (400) and lists each parameter at fault (field) with its reason (message). When contacting us,
      please quote request_id (the same value as the X-Request-Id header).
    </>
  ),
  corsNote: 'Every answer carries CORS headers (Access-Control-Allow-Origin: *), and JavaScript in a browser can read the headers above.',
  sampleLabel: (status, summary) => `Sample answer ${status} ${summary}`,
  pagingIntro: (
    <>
      The order is always unique. Searches with latitude and longitude come nearest first (ties in ascending poi_id order), others newest first (ties in descending poi_id
      order). A keyword search without a point puts POIs whose name equals the keyword first, then names starting with it, then the rest, each newest first. total is the same on
      every page: counted exactly up to 100; beyond that it is 100 and total_capped is true (a list without keyword and point is exact at any size).
    </>
  ),
  pagingOffset: (
    <>
      <strong>offset</strong>: for numbered pages. offset = (page number − 1) × limit. While the data does not change, every POI appears exactly once across the pages.
    </>
  ),
  pagingCursor: (
    <>
      <strong>cursor</strong>: for walking through everything. Send the answer&apos;s next_cursor as cursor with the same search parameters to get the next page; on the last
      page next_cursor is null. Even while POIs are added or removed, every POI that existed from start to end is answered exactly once. A cursor is a signed value bound to the
      search (datasets, keyword, point, radius): changed parameters or an edited cursor answer 400. limit may change from page to page. cursor and offset cannot be combined.
    </>
  ),
  cursorExampleLabel: 'Fetching every page with cursor (JavaScript)',
  rules: [
    <>Words separated by spaces (half-width or full-width) must all be found in a POI. Each word may be in any field (name, address, category, tags), in any order.</>,
    <>
      Keywords ignore differences of writing: full-width and half-width, upper and lower case, hiragana and katakana, long vowel marks, small kana, &quot;ヶ&quot;, &quot;ケ&quot;
      and &quot;が&quot; between kanji, common variant kanji, symbols and spaces inside names, and accents (&quot;cafe&quot; finds &quot;Café&quot;). Names are also found by
      their reading in hiragana, katakana or romaji (&quot;tokyo tower&quot; finds &quot;東京タワー&quot;). Readings are estimated with a dictionary, so a name with several
      readings may not be found by all of them. Voiced and unvoiced kana and the presence of a long vowel are told apart.
    </>,
    <>Distances are great-circle distances on a sphere of mean Earth radius 6,371,008.8 m (as the haversine formula). The radius filter and distance_m use the same distance.</>,
    <>Numbers are decimal (0x23 or 3.5e1 answer 400). An empty value (limit= and the like) answers 400 too.</>,
    <>
      Only the parameters in the table can be used. Any other (lat, lng, q …) answers 400 with the name most likely meant. A parameter other than dataset_id given twice, or broken
      URL encoding (%xx), answers 400 as well.
    </>,
    <>The same dataset_id given more than once counts once, and is billed once.</>,
    <>
      Methods other than GET (HEAD included) answer 405 (Allow: GET, OPTIONS), unknown URLs under /api/v1 answer 404. Neither is billed. errors[] gives the reason for each
      field.
    </>,
    <>Send an X-Request-Id header of 8 to 128 letters, digits or ._- and it becomes the request&apos;s ID, returned in the X-Request-Id header and error.request_id.</>,
  ],
  loading: 'Loading the API definition…',
  loadFailed: 'The API definition could not be loaded',
  rateLimitsIntro: (perMinute) => (
    <>
      The number of requests per minute depends on the account type (plan) and is shared by the account&apos;s API keys. Requests without a key or with an invalid key are
      limited to {perMinute} per minute per source IP address.
    </>
  ),
  rateHeaders: [
    ['X-RateLimit-Limit', 'requests allowed per minute'],
    ['X-RateLimit-Remaining', 'requests left in the current minute'],
    ['X-RateLimit-Reset', 'seconds until the remaining count is reset'],
  ],
  rateRetry: 'Past the limit the API answers 429 with a Retry-After header (seconds). Wait that long before retrying.',
  billing: [
    <>Only successful searches (HTTP 200) are billed. Requests answered with an error are not.</>,
    <>
      A search costs the sum of the given datasets&apos; price per search plus the plan&apos;s base fee. The price is recorded at the moment of the search; later price changes do
      not alter it.
    </>,
    <>Within the month&apos;s free searches (Japan time) there is no base fee; the datasets&apos; prices still apply.</>,
    <>Trial accounts can search free datasets only, up to the month&apos;s free searches; beyond that the API answers 402. Upgrade at /upgrade.</>,
    <>Usage and charges appear in the console under Usage within seconds.</>,
  ],
  envTitle: 'Before running an example, set two environment variables (both are required)',
  envKey: (
    <>
      <code className="font-mono">POI_API_KEY</code>: your API key, issued under {link('/api-keys', 'API keys')}in the console.
    </>
  ),
  envDataset: (
    <>
      <code className="font-mono">POI_DATASET_ID</code>: the ID of the dataset to search. The search needs dataset_id and answers 400 without it. Click a card in the
      {link('/marketplace', 'marketplace')}to copy its ID (the dataset&apos;s page shows it too).
    </>
  ),
  envExample: (
    <>
      For example <code className="font-mono">export POI_API_KEY=poi_live_… POI_DATASET_ID=…</code>. Run without them, an example sends no request and stops saying what to
      set. Do not write the key into your source code. The English examples send <code className="font-mono">Accept-Language: en</code>, so errors come back in English.
    </>
  ),
  tabsLabel: 'Language of the code examples',
  exampleLabel: (language) => `${language} example`,
  exampleKeyword: 'カフェ',
  sdkIntro: (
    <>
      From TypeScript and JavaScript (ESM, Node.js 20 or later and browsers) you can use the typed SDK <code className="font-mono">@poi/sdk</code>. Its types are generated
      from the same OpenAPI document as this page, so your editor and compiler check parameter names and answer fields.
    </>
  ),
  sdkItems: [
    <>
      <code className="font-mono">search(params)</code> answers one page; <code className="font-mono">searchAll(params)</code> follows next_cursor and yields every POI
      (<code className="font-mono">for await</code>). Each page is billed as one search.
    </>,
    <>
      <code className="font-mono">suggest(params)</code> answers type-ahead suggestions; <code className="font-mono">searchGeoJson(params)</code> answers the same page as a
      GeoJSON FeatureCollection. With <code className="font-mono">fields: [&apos;name&apos;, …]</code> the POIs&apos; type keeps just those fields.
    </>,
    <>
      429 and 503 are retried after waiting Retry-After (seconds or a date; twice by default, set with <code className="font-mono">maxRetries</code>). Other errors are not
      retried.
    </>,
    <>
      Errors are thrown as <code className="font-mono">PoiApiError</code> (status, code, message, errors, requestId), by kind PoiValidationError (400), PoiAuthError (401),
      PoiNotFoundError (404), PoiRateLimitError (429) and PoiUnavailableError (503). With <code className="font-mono">language: &apos;en&apos;</code> the messages are
      English.
    </>,
  ],
  sdkExampleLabel: 'TypeScript SDK example',
  sdkRun: (
    <>
      With the environment variables set, save the example as <code className="font-mono">sample.mts</code> and run it with{' '}
      <code className="font-mono">npx tsx sample.mts</code>.
    </>
  ),
};

export const DOCS_TEXT: Record<DocsLanguage, DocsText> = { ja, en };
