import { englishOf } from '../../lib/english-messages';

/*
 * The English version of the public API's part of /openapi.json (`/openapi.json?lang=en`), which
 * /docs/api?lang=en renders. The texts live in Japanese in the zod schemas and route options
 * (packages/shared/src/schemas/pois.ts, public-api.ts, the routes); their English is here, keyed
 * by the Japanese text, so an edited or new Japanese text shows up as missing
 * (apps/server/test/openapi-english.test.ts fails on any). Error messages in the examples are
 * translated as the API itself translates them (lib/english-messages.ts). Japanese in an English
 * text is quoted ("東京タワー"): it is sample input, not an untranslated part.
 */
const DOC_ENGLISH = new Map<string, string>([
  ['POIの検索(APIキー認証・従量課金)',
    'Search POIs (API key, billed per search)'],
  ['公開検索API',
    'Public search API'],
  ['dataset_id で指定したデータセット(1〜10件、カンマ区切りまたは繰り返し指定)からPOIを検索します。キーワード、緯度・経度・半径(メートル)で絞り込めます。200の応答1件が課金対象の1検索です。すべての応答に X-RateLimit-Limit / X-RateLimit-Remaining / X-RateLimit-Reset と X-Request-Id ヘッダーが付きます。',
    'Searches the POIs of the datasets given in dataset_id (1 to 10, comma-separated or repeated). Narrow them down by keyword and by latitude, longitude and radius (metres). Each answer with status 200 is one billed search. Every answer carries the X-RateLimit-Limit / X-RateLimit-Remaining / X-RateLimit-Reset and X-Request-Id headers.'],
  ['検索するデータセットのID(1〜10件。カンマ区切り、またはパラメーターの繰り返しで指定)',
    'IDs of the datasets to search (1 to 10, comma-separated or the parameter repeated)'],
  ['名称・住所・カテゴリ・タグに含まれる文字列(最大100文字)。空白(半角・全角)で区切った語はすべてを含むPOIだけが該当します(AND。語はどの項目にあってもよく、順序も問いません。最大10語)。全角・半角、大文字・小文字、ひらがな・カタカナ、長音(ー・-)、小書きの仮名(ァ・ャ・ッなど)、漢字の間のヶ・ケ・が、主な異体字(髙・﨑・齋・邊など)、記号と名称中の空白、アクセント記号(é など)を区別しません。名称は読み(ひらがな・カタカナ・ローマ字)でも探せます(例: とうきょうたわー、tokyo tower → 東京タワー)',
    'Text contained in the name, address, category or tags (at most 100 characters). Words separated by spaces (half-width or full-width) must all be found (AND; each word may be in any field, in any order; at most 10 words). Full-width and half-width forms, upper and lower case, hiragana and katakana, long vowel marks ("ー" and "-"), small kana ("ァ", "ャ", "ッ" …), "ヶ", "ケ" and "が" between kanji, common variant kanji ("髙", "﨑", "齋", "邊" …), symbols and spaces inside names, and accents (é …) are not told apart. Names are also found by their reading in hiragana, katakana or romaji (for example "とうきょうたわー" or "tokyo tower" finds "東京タワー")'],
  ['検索の中心の緯度(世界測地系、10進数)。経度と一緒に指定すると近い順に並びます',
    'Latitude of the search centre (WGS 84, decimal degrees). With longitude, results come nearest first'],
  ['検索の中心の経度(世界測地系、10進数)',
    'Longitude of the search centre (WGS 84, decimal degrees)'],
  ['中心からの半径(メートル、1〜50000)。緯度・経度と一緒に指定します。距離は平均地球半径 6,371,008.8 m の球面上の大圏距離です',
    'Radius around the centre in metres (1 to 50000). Needs latitude and longitude. Distances are great-circle distances on a sphere of mean Earth radius 6,371,008.8 m'],
  ['1ページの件数(1〜100、既定 20)',
    'Results per page (1 to 100, default 20)'],
  ['ページ番号で送るときに読み飛ばす件数(0〜100000)。cursor と同時には指定できません',
    'How many results to skip when paging by page number (0 to 100000). Cannot be combined with cursor'],
  ['前の応答の next_cursor。同じ検索条件で続きのページを返します(データが追加・削除されても重複・欠落なく最後までたどれます)',
    'The previous answer\'s next_cursor. Answers the next page of the same search (to the end without duplicates or gaps, even while data is added or removed)'],
  ['地図の表示範囲で絞り込みます: 最小経度,最小緯度,最大経度,最大緯度(世界測地系、10進数、カンマ区切り。例: 139.69,35.65,139.78,35.71)。境界上のPOIも含みます。経度180度をまたぐ範囲は指定できません。キーワードや緯度・経度(近い順)と組み合わせられますが、radius とは同時に指定できません',
    'Filters by a map viewport: minLon,minLat,maxLon,maxLat (WGS 84, decimal degrees, comma-separated; for example 139.69,35.65,139.78,35.71). POIs on the boundary are included. A box across the 180th meridian cannot be given. Combines with keyword and with latitude/longitude (nearest first), but not with radius'],
  ['タグで絞り込みます(カンマ区切りで最大10個。すべてのタグを持つPOIだけが該当します)。タグ全体が一致するものだけが該当し、キーワードと同じく全角・半角、大文字・小文字、ひらがな・カタカナ、記号などの違いは区別しません(例: wifi は Wi-Fi に一致)',
    'Filters by tags (comma-separated, at most 10; only POIs having every tag match). A tag matches only as a whole; as with keyword, full-width and half-width forms, upper and lower case, hiragana and katakana, symbols and the like are not told apart (for example wifi matches Wi-Fi)'],
  ['カテゴリで絞り込みます。カテゴリ全体が一致するPOIだけが該当します(キーワードと同じく全角・半角、ひらがな・カタカナ、記号などの違いは区別しません)',
    'Filters by category. Only POIs whose whole category matches are found (as with keyword, full-width and half-width forms, hiragana and katakana, symbols and the like are not told apart)'],
  ['応答の形式。geojson は GeoJSON の FeatureCollection(Content-Type: application/geo+json)を返します(Accept: application/geo+json でも同じ)。各 Feature の geometry は POI の地点、id は poi_id、properties は緯度・経度以外の項目です。total・total_capped・next_cursor は FeatureCollection の直下にあります。エラーは常に JSON です',
    'Format of the answer. geojson answers a GeoJSON FeatureCollection (Content-Type: application/geo+json); so does Accept: application/geo+json. Each Feature\'s geometry is the POI\'s point, its id is poi_id and its properties are the fields other than latitude and longitude. total, total_capped and next_cursor are members of the FeatureCollection. Errors are always JSON'],
  ['応答に含めるPOIの項目(カンマ区切り。例: id,name,latitude,longitude)。poi_id(別名 id)は常に含まれます。指定できるのは id, poi_id, dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, created_at, updated_at, distance_m です。distance_m は緯度・経度を指定した検索でのみ返ります',
    'The POI fields to answer (comma-separated; for example id,name,latitude,longitude). poi_id (alias id) is always included. The fields are id, poi_id, dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, created_at, updated_at and distance_m. distance_m is answered only by searches with latitude and longitude'],
  ['検索成功(課金対象の1検索)',
    'Search succeeded (one billed search)'],
  ['この応答のリクエストID(問い合わせの際にお知らせください)。クライアントが 8〜128 文字の英数字・._- の X-Request-Id を送ると同じ値を返し、それ以外はサーバーが採番します',
    'The request ID of this answer (please quote it when contacting us). A client that sends an X-Request-Id of 8 to 128 letters, digits or ._- gets the same value back; otherwise the server assigns one'],
  ['1分あたりのリクエスト上限(アカウント種別ごと。APIキーのないリクエストはIPアドレスごと)',
    'Requests allowed per minute (per account type; requests without an API key are counted per IP address)'],
  ['現在の1分間の残り回数',
    'Requests left in the current minute'],
  ['残り回数がリセットされるまでの秒数',
    'Seconds until the remaining count is reset'],
  ['常に no-store(応答をキャッシュに保存しないでください)',
    'Always no-store (do not keep answers in a cache)'],
  ['POIのID(UUID)',
    'POI ID (UUID)'],
  ['POIが属するデータセットのID',
    'ID of the dataset the POI belongs to'],
  ['名称',
    'Name'],
  ['緯度(世界測地系)',
    'Latitude (WGS 84)'],
  ['経度(世界測地系)',
    'Longitude (WGS 84)'],
  ['住所',
    'Address'],
  ['カテゴリ',
    'Category'],
  ['説明',
    'Description'],
  ['電話番号',
    'Phone number'],
  ['ウェブサイトのURL',
    'Website URL'],
  ['画像のURL',
    'Image URL'],
  ['タグ',
    'Tags'],
  ['登録日時(ISO 8601)',
    'Registered at (ISO 8601)'],
  ['更新日時(ISO 8601)',
    'Updated at (ISO 8601)'],
  ['検索の中心からの距離(メートル)。緯度・経度を指定した検索のみ',
    'Distance from the search centre in metres. Only for searches with latitude and longitude'],
  ['検索結果のPOI。緯度・経度を指定した検索は近い順、それ以外は登録の新しい順(キーワードがあれば、名称がキーワードと一致するPOI、名称がキーワードで始まるPOI、その他の順に分けたうえで、それぞれ新しい順)。同じ距離(同じ登録日時)のPOIは poi_id の昇順(降順)で並び、順序は常に一意です',
    'The POIs found. Searches with latitude and longitude come nearest first, others newest first (with a keyword: POIs whose name equals the keyword, then names starting with it, then the rest, each newest first). POIs at the same distance (registered at the same moment) come in ascending (descending) poi_id order, so the order is always unique'],
  ['該当件数。どのページでも同じ値です。100件までは正確に数え、100件を超えると 100 を返して total_capped が true になります。キーワードも地点も指定しない一覧は件数の上限なく正確です',
    'Number of matches, the same on every page. Counted exactly up to 100; beyond that it is 100 and total_capped is true. A list without keyword and point is exact at any size'],
  ['該当件数が100件を超え、total が上限の100であること',
    'More than 100 matches: total is the cap of 100'],
  ['続きのページがあるとき、それを返す cursor の値。最後のページでは null',
    'The cursor that answers the next page, when there is one; null on the last page'],
  ['半径検索(近い順。2ページ目以降は next_cursor で続けて取得)',
    'Radius search (nearest first; later pages through next_cursor)'],
  ['該当が100件を超えるキーワード検索(名称の一致・前方一致が先、それぞれ新しい順。total は上限の 100、total_capped が true)',
    'Keyword search with more than 100 matches (exact and prefix name matches first, each newest first; total is the cap of 100 and total_capped is true)'],
  ['最後のページ(next_cursor が null)',
    'The last page (next_cursor is null)'],
  ['該当なし',
    'No matches'],
  ['VALIDATION_ERROR: パラメーターが不正(dataset_id なし、範囲外・数値でない値、URLエンコードの誤り、不明なパラメーター、空白や記号だけのキーワード、不正な cursor など)。errors[] に項目(field)ごとの理由が入ります',
    'VALIDATION_ERROR: invalid parameters (no dataset_id, values out of range or not numbers, broken URL encoding, unknown parameters, a keyword of only spaces or symbols, an invalid cursor and the like). errors[] gives the reason for each field'],
  ['不明なパラメーター(lat / lng / q などの綴り違い)',
    'Unknown parameters (misspellings such as lat / lng / q)'],
  ['範囲外・整数でない limit',
    'limit out of range or not an integer'],
  ['壊れたURLエンコード(keyword=%E3%81 など)',
    'Broken URL encoding (keyword=%E3%81 and the like)'],
  ['検索条件と一致しない cursor',
    'A cursor that does not match the search'],
  ['UNAUTHORIZED: APIキーがない、形式が不正、存在しない、無効化済み、または期限切れ',
    'UNAUTHORIZED: the API key is missing, malformed, unknown, revoked or expired'],
  ['APIキーなし',
    'No API key'],
  ['PAYMENT_REQUIRED: トライアルアカウントで有料データセットを指定した、または今月の無料検索回数を使い切った。BUDGET_EXCEEDED: 上限到達時に停止する月間予算に達した(課金されません)',
    'PAYMENT_REQUIRED: a trial account asked for a paid dataset, or has used up this month\'s free searches. BUDGET_EXCEEDED: a monthly budget that stops searches when reached has been reached (nothing is billed)'],
  ['トライアルで有料データセット',
    'A paid dataset on a trial account'],
  ['月間予算の上限に到達',
    'The monthly budget reached'],
  ['FORBIDDEN / ACCOUNT_SUSPENDED: 許可されていないIPアドレスやリファラー(Referer がなければ Origin)からの利用、またはアカウント停止中',
    'FORBIDDEN / ACCOUNT_SUSPENDED: used from an IP address or referrer that is not allowed (Origin when there is no Referer), or the account is suspended'],
  ['許可されていないリファラー',
    'A referrer that is not allowed'],
  ['NOT_FOUND: 指定したデータセットが存在しない(/api/v1 の存在しないURLも 404)',
    'NOT_FOUND: a dataset given does not exist (an unknown URL under /api/v1 is a 404 too)'],
  ['存在しないデータセット',
    'An unknown dataset'],
  ['METHOD_NOT_ALLOWED: GET 以外のメソッド(HEAD・POST など。課金されません)。Allow ヘッダーに使えるメソッドが入ります',
    'METHOD_NOT_ALLOWED: a method other than GET (HEAD, POST …; not billed). The Allow header lists the methods to use'],
  ['POST で呼び出した',
    'Called with POST'],
  ['RATE_LIMITED: 1分あたりのリクエスト上限を超えた(Retry-After 秒後に再試行)',
    'RATE_LIMITED: more requests than allowed per minute (retry after Retry-After seconds)'],
  ['再試行までに待つ秒数',
    'Seconds to wait before retrying'],
  ['レート制限',
    'Rate limit'],
  ['SERVICE_UNAVAILABLE: 一時的に検索を受け付けられない(Retry-After 秒後に再試行)',
    'SERVICE_UNAVAILABLE: searches cannot be accepted for the moment (retry after Retry-After seconds)'],
  ['一時的に受付停止',
    'Temporarily not accepting searches'],
  ['入力中の文字からPOIの候補(サジェスト・APIキー認証・従量課金)',
    'POI suggestions for what is being typed (type-ahead; API key, billed per request)'],
  ['入力途中の文字(q)から、名称とその読みが一致するPOIを最大 limit 件返します(検索ボックスの入力補完向け)。かな・カタカナ・半角カナ・ローマ字(ヘボン式・訓令式、入力途中の子音も可)で探せ、名称の一致 → 名称の前方一致 → 読みの前方一致 → 途中一致の順、地点を指定すれば同じ順位の中で近い順に並びます。200の応答1件が課金対象で、料金は1検索の5分の1(データセットの検索単価と基本料金をそれぞれ5で割り、1銭未満切り捨て)。無料検索回数・予算・レート制限は検索と同じく1回として数えます。',
    'Answers up to limit POIs whose name or its reading matches what has been typed so far (q), for completing a search box as the user types. Kana, katakana, half-width kana and romaji (Hepburn and Kunrei, including a trailing consonant mid-syllable) are understood. Ranked exact name, name prefix, reading prefix, then the rest; with a point, nearer first within the same rank. Each answer with status 200 is billed at one fifth of a search (the datasets\' unit prices and the base fee each divided by 5, fractions of a sen dropped). Free searches, budgets and rate limits count it as one request, as a search.'],
  ['候補を探すデータセットのID(1〜10件。カンマ区切り、またはパラメーターの繰り返しで指定)',
    'IDs of the datasets to suggest from (1 to 10, comma-separated or the parameter repeated)'],
  ['入力中の文字(1〜50文字)。名称とその読みの先頭・途中に一致するPOIを返します。ひらがな・カタカナ・半角カナ、ローマ字(ヘボン式・訓令式。shibu / sibu、入力途中の shib も可)、長音(おおとや・おうとや・おーとや → 大戸屋)、ヴィ/ビ などの表記ゆれ、検索と同じ全角・半角、小書きの仮名、ヶ/ケ/が、主な異体字の違いを区別しません',
    'What has been typed (1 to 50 characters). Answers POIs whose name or reading starts with or contains it. Hiragana, katakana, half-width kana, romaji (Hepburn and Kunrei: shibu / sibu, a partial shib too), long vowels ("おおとや", "おうとや" and "おーとや" all find "大戸屋"), spelling variants such as "ヴィ" and "ビ", and the differences the search ignores (full-width and half-width, small kana, "ヶ", "ケ" and "が", common variant kanji) are not told apart'],
  ['近い候補を先にする地点の緯度(世界測地系、10進数。経度と一緒に指定)',
    'Latitude of a point whose nearer suggestions come first (WGS 84, decimal degrees; with longitude)'],
  ['近い候補を先にする地点の経度(世界測地系、10進数)',
    'Longitude of a point whose nearer suggestions come first (WGS 84, decimal degrees)'],
  ['候補の件数(1〜20、既定 10)',
    'Number of suggestions (1 to 20, default 10)'],
  ['候補(課金対象の1サジェスト)',
    'Suggestions (one billed suggest request)'],
  ['指定した地点からの距離(メートル)。緯度・経度を指定したときのみ',
    'Distance from the given point in metres. Only when latitude and longitude are given'],
  ['一致の種類: exact(名称が入力と一致)、name_prefix(名称が入力で始まる)、reading_prefix(名称の読み・ローマ字が入力で始まる)、contains(名称か読みの途中に入力を含む)。この順に並びます',
    'Kind of match: exact (the name equals the input), name_prefix (the name starts with it), reading_prefix (the reading or romaji of the name starts with it), contains (the name or reading contains it). Suggestions come in this order'],
  ['候補(最大 limit 件)。exact → name_prefix → reading_prefix → contains の順。同じ種類の中では、地点を指定すれば近い順、指定しなければ名称の短い順・名称順。最後は poi_id の昇順で、順序は常に一意です',
    'Suggestions (at most limit). exact, then name_prefix, then reading_prefix, then contains. Within a kind, nearest first when a point is given, otherwise shorter names first, then by name. Ties end in ascending poi_id order, so the order is always unique'],
  ['公開検索APIのAPIキー(poi_live_ で始まる文字列)',
    'API key of the public search API (a string starting with poi_live_)'],
  ['公開検索APIのAPIキーを Authorization: Bearer で送る形式(X-API-Key と同じキー)',
    'The public search API\'s API key sent as Authorization: Bearer (the same key as X-API-Key)'],
]);

/** Keys whose string values are prose to translate. */
const TEXT_KEYS = new Set(['summary', 'description', 'title']);
/** Keys whose values are data (sample POIs, defaults, patterns): left as they are. */
const VALUE_KEYS = new Set(['example', 'default', 'enum', 'const', 'pattern']);
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface OpenApiInput {
  openapi: string;
  info: { title: string; version: string; description?: string; license?: unknown };
  servers?: unknown;
  paths: Record<string, Json>;
  components?: { securitySchemes?: Record<string, Json> };
}

/**
 * The English document of the public API: its paths (those under /api/) and the API-key
 * security schemes, every summary, description and tag in English, and the sample error
 * answers' messages as `Accept-Language: en` answers them. The console API stays Japanese and
 * is not part of it. `missing` lists the Japanese texts without English (an empty list is the
 * goal; each stays Japanese meanwhile).
 */
export function englishOpenApi(doc: OpenApiInput): { document: OpenApiInput; missing: string[] } {
  const missing = new Set<string>();
  const text = (value: string): string => {
    if (!JAPANESE.test(value)) return value;
    const english = DOC_ENGLISH.get(value) ?? englishOf(value);
    if (english === undefined) missing.add(value);
    return english ?? value;
  };
  const message = (value: string): string => {
    const english = englishOf(value);
    if (english === undefined && JAPANESE.test(value)) missing.add(value);
    return english ?? value;
  };
  /** A sample answer: an error's messages in English, anything else (POIs) as it is. */
  const sample = (value: Json): Json => {
    if (!value || typeof value !== 'object' || Array.isArray(value) || value.success !== false) return value;
    const error = value.error as { [key: string]: Json } | undefined;
    const errors = value.errors as Array<{ [key: string]: Json }> | undefined;
    return {
      ...value,
      ...(error ? { error: { ...error, message: message(String(error.message)) } } : {}),
      ...(errors ? { errors: errors.map((e) => ({ ...e, message: message(String(e.message)) })) } : {}),
    };
  };
  const walk = (node: Json, key?: string): Json => {
    if (Array.isArray(node)) return node.map((item) => (key === 'tags' && typeof item === 'string' ? text(item) : walk(item)));
    if (!node || typeof node !== 'object') return node;
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(node)) {
      if (VALUE_KEYS.has(k)) out[k] = v;
      else if (TEXT_KEYS.has(k) && typeof v === 'string') out[k] = text(v);
      else if (k === 'examples' && v && typeof v === 'object' && !Array.isArray(v)) {
        out[k] = Object.fromEntries(
          Object.entries(v).map(([name, e]) => {
            const example = e as { [key: string]: Json };
            return [name, { ...example, ...(typeof example.summary === 'string' ? { summary: text(example.summary) } : {}), value: sample(example.value ?? null) }];
          }),
        );
      } else out[k] = walk(v, k);
    }
    return out;
  };
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([path]) => path.startsWith('/api/')).map(([path, item]) => [path, walk(item)]));
  // The security schemes the public operations name (the API key's two forms, not the console's session).
  const used = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item as Record<string, { security?: Array<Record<string, unknown>> }>).flatMap((op) => (op.security ?? []).flatMap((s) => Object.keys(s))),
    ),
  );
  const schemes = Object.fromEntries(Object.entries(doc.components?.securitySchemes ?? {}).filter(([name]) => used.has(name)).map(([name, scheme]) => [name, walk(scheme)]));
  const document: OpenApiInput = {
    openapi: doc.openapi,
    info: { ...doc.info, description: 'POI Cloud public search API (English). The console API is documented in Japanese only, at /openapi.json.' },
    ...(doc.servers ? { servers: doc.servers } : {}),
    components: { securitySchemes: schemes },
    paths,
  };
  return { document, missing: [...missing] };
}
