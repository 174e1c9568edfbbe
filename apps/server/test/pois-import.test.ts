import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { bearer, withTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
let provider: Actor;
let other: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

function multipart(fields: Record<string, string>, file?: { name: string; content: Buffer | string }) {
  const boundary = `----poi${Math.random().toString(36).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function importFile(who: Actor, datasetId: string, format: string, name: string, content: Buffer | string, mode?: string) {
  const body = multipart({ dataset_id: datasetId, format, ...(mode ? { mode } : {}) }, { name, content });
  return ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(who.token), ...body.headers }, payload: body.payload });
}

const newDataset = () => ctx.newDataset(provider, { name: `取込 ${Math.random()}` });
const countOf = async (ds: string) => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds]))[0]!.n;
const poisOf = async (ds: string) => (await api('GET', `/poi/search?dataset_id=${ds}&limit=100`, provider)).json().data.pois as Array<Record<string, unknown>>;

withTestContext({}, async (opened) => {
  ctx = opened;
  provider = await ctx.newProvider('provider');
  other = await ctx.newProvider('other');
});

const CSV = [
  '名称,緯度,経度,住所,カテゴリ,説明,電話番号,ウェブサイト,画像URL,タグ',
  'カフェ東京,35.681236,139.767125,東京都千代田区丸の内1-1,カフェ,"駅前の店, 朝7時から",03-1234-5678,https://example.com,,Wi-Fi|禁煙',
  '"改行\nのある店",35.0,135.0,,,,,,,"電源、個室|a,b"',
  '緯度がおかしい店,91,139,,,,,,,',
  ',35,139,,,,,,,',
].join('\r\n');

describe('POST /console/v1/poi/bulk-import — CSV', () => {
  it('imports UTF-8 with Japanese headers, CRLF, quoted commas and newlines; skips and reports invalid rows', async () => {
    const ds = await newDataset();
    const res = await importFile(provider, ds, 'csv', 'pois.csv', CSV);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, imported_count: 2, total_count: 4, skipped_count: 2, message: 'POIの一括インポートが完了しました' });
    // Rows as a spreadsheet shows them: the header is row 1, the two-line record is row 3.
    expect(body.skipped).toEqual([
      { line: 4, field: 'latitude', reason: '緯度は-90から90の範囲で入力してください' },
      { line: 5, field: 'name', reason: '名称を入力してください' },
    ]);
    const pois = await poisOf(ds);
    const cafe = pois.find((p) => p.name === 'カフェ東京')!;
    expect(cafe).toMatchObject({ description: '駅前の店, 朝7時から', tags: ['Wi-Fi', '禁煙'], website: 'https://example.com', image_url: null });
    // Tags are separated by | only: 、 and commas belong to the tag.
    expect(pois.find((p) => p.name === '改行\nのある店')).toMatchObject({ tags: ['電源、個室', 'a,b'] });
    expect((await api('GET', `/datasets/${ds}`, provider)).json().data.poi_count).toBe(2);
  });

  it('stores backslashes, tabs, quotes and \\N text exactly, and skips a row holding NUL', async () => {
    const ds = await newDataset();
    const csv = [
      'name,latitude,longitude,address,description,tags',
      '"C:\\path\\店",35,139,"\\N","タブ\tと\r改行\nと""引用""","a\\b|""c"""',
      'NUL\u0000の店,35,139,,,',
      '"長い説明の店",35,139,,"' + 'あ'.repeat(1000) + '",',
    ].join('\n');
    const res = await importFile(provider, ds, 'csv', 'escapes.csv', csv);
    expect(res.statusCode).toBe(200);
    // Rows are records as a spreadsheet shows them: the first record (with its quoted CR and LF) is row 2.
    expect(res.json()).toMatchObject({ imported_count: 2, total_count: 3, skipped: [{ line: 3, field: 'name', reason: '名称に使用できない文字(NUL)が含まれています' }] });
    const pois = await poisOf(ds);
    expect(pois.find((p) => p.name === 'C:\\path\\店')).toMatchObject({ address: '\\N', description: 'タブ\tと\r改行\nと"引用"', tags: ['a\\b', '"c"'] });
    expect((pois.find((p) => p.name === '長い説明の店')!.description as string).length).toBe(1000);
    // The derived search columns went through the same escaping: the backslash is searchable.
    expect((await api('GET', `/poi/search?dataset_id=${ds}&keyword=${encodeURIComponent('path\\店')}`, provider)).json().data.total).toBe(1);
  });

  it('reads UTF-8 with BOM and Shift_JIS (what Excel writes)', async () => {
    const text = 'name,latitude,longitude,tags\r\n東京タワー,35.658584,139.745431,展望台|観光\r\nｶﾌｪ,35.1,139.1,\r\n';
    for (const content of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), iconv.encode(text, 'Shift_JIS')]) {
      const ds = await newDataset();
      const res = await importFile(provider, ds, 'csv', 'excel.csv', content);
      expect(res.statusCode).toBe(200);
      expect(res.json().imported_count).toBe(2);
      const names = (await poisOf(ds)).map((p) => p.name).sort();
      expect(names).toEqual(['ｶﾌｪ', '東京タワー'].sort());
      // Found by the normalised keyword as well.
      expect((await api('GET', `/poi/search?dataset_id=${ds}&keyword=カフェ`, provider)).json().data.total).toBe(1);
    }
  });

  it.each([
    ['missing columns', 'name,address\nA,B\n', 'csv', 400, 'CSVのヘッダーに必須の列がありません: 緯度, 経度'],
    ['broken quotes', 'name,latitude,longitude\n"A,35,139\n', 'csv', 400, /^CSVの形式が正しくありません/],
    ['no valid row', 'name,latitude,longitude\n,35,139\nB,100,139\n', 'csv', 400, '取り込めるPOIがありませんでした。スキップされた行の理由を確認してください'],
    ['empty file', '', 'csv', 400, 'CSVにヘッダー行がありません'],
    ['bad JSON', '[{"name": "A",', 'json', 400, 'JSONの構文が正しくありません'],
    ['wrong JSON shape', '{"items": []}', 'json', 400, /^JSONの形式が正しくありません/],
    ['undecodable bytes', Buffer.from([0x6e, 0x61, 0xff, 0xfe, 0xfd, 0x80, 0x81, 0xff]), 'csv', 400, 'ファイルの文字コードを判別できませんでした。UTF-8 または Shift_JIS で保存してください'],
  ])('rejects %s with a Japanese message and writes nothing', async (_n, content, format, status, message) => {
    const ds = await newDataset();
    const res = await importFile(provider, ds, format as string, `f.${format}`, content as string);
    expect(res.statusCode).toBe(status);
    expect(res.json().error.message).toMatch(message as string | RegExp);
    expect(await countOf(ds)).toBe(0);
  });

  it('treats a row of only commas (or blank cells) as a blank line: skipped, not an error, not counted', async () => {
    const ds = await newDataset();
    const csv = ['name,latitude,longitude,tags', '店A,35,139,a', ',,,', '  , ,\t,', '"","",,""', '店B,35,139,', ',,'].join('\n');
    const res = await importFile(provider, ds, 'csv', 'blank.csv', csv);
    expect(res.statusCode).toBe(200);
    // ',,' has the wrong number of columns but nothing in it: blank as well.
    expect(res.json()).toMatchObject({ imported_count: 2, added_count: 2, total_count: 2, skipped_count: 0, skipped: [] });
    expect(await countOf(ds)).toBe(2);
    // Row numbers stay those a spreadsheet shows: a blank row still takes its line.
    const bad = await importFile(provider, ds, 'csv', 'blank2.csv', ['name,latitude,longitude', ',,', ',91,139', '店C,35,139'].join('\n'));
    expect(bad.json()).toMatchObject({ added_count: 1, total_count: 2, skipped_count: 1, skipped: [{ line: 3, field: 'name' }, { line: 3, field: 'latitude' }] });
  });

  it('names the line where an unclosed quote opened, never one past the end of the file', async () => {
    const ds = await newDataset();
    for (const [csv, line] of [
      ['name,latitude,longitude\n店A,35,139\n"店B,35,139\n', 3],
      ['name,latitude,longitude\n"店A,35,139\n店B,35,139', 2],
      ['name,latitude,longitude\r\n店A,35,139\r\n店B,"35,139', 3],
    ] as const) {
      const res = await importFile(provider, ds, 'csv', 'open.csv', csv);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toBe(`CSVの形式が正しくありません(${line}行目で始まる引用符が閉じられていません)`);
    }
    expect(await countOf(ds)).toBe(0);
  });

  it('answers 413 over 10 MB and leaves the dataset as it was', async () => {
    const ds = await newDataset();
    const row = `とても長い説明のお店,35.0,139.0,${'説明'.repeat(160)}\n`;
    const big = `name,latitude,longitude,description\n${row.repeat(Math.ceil((10 * 1024 * 1024 + 10) / Buffer.byteLength(row)))}`;
    const res = await importFile(provider, ds, 'csv', 'big.csv', big);
    if (res.statusCode !== 413) console.error(res.body);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toBe('ファイルサイズが10MBを超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時10MB・展開後100MBまで取り込めます');
    expect(await countOf(ds)).toBe(0);
  });

  it('checks fields, extension and permission', async () => {
    const ds = await newDataset();
    const wrongFormat = await importFile(provider, ds, 'xml', 'a.csv', CSV);
    expect(wrongFormat.statusCode).toBe(400);
    expect(wrongFormat.json().error.message).toBe('ファイル形式は csv または json を指定してください');
    const ext = await importFile(provider, ds, 'csv', 'a.txt', CSV);
    expect(ext.statusCode).toBe(400);
    expect(ext.json().error.message).toBe('ファイルは .csv、.json、.geojson(gzip圧縮した .gz も可)を選択してください');
    const noFile = multipart({ dataset_id: ds, format: 'csv' });
    const missing = await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), ...noFile.headers }, payload: noFile.payload });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toBe('ファイルを選択してください');
    expect((await importFile(other, ds, 'csv', 'a.csv', CSV)).statusCode).toBe(403);
    const guest = multipart({ dataset_id: ds, format: 'csv' }, { name: 'a.csv', content: CSV });
    expect((await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: guest.headers, payload: guest.payload })).statusCode).toBe(401);
    expect(await countOf(ds)).toBe(0);
  });
});

describe('POST /console/v1/poi/bulk-import — JSON', () => {
  const pois = [
    { name: '配列の店', latitude: 35, longitude: 139, tags: ['a', 'b'] },
    { 名称: '日本語キー', 緯度: '34.5', 経度: '135.5', タグ: 'x|y' },
    'not an object',
  ];
  it.each([
    ['an array', JSON.stringify(pois)],
    ['{ pois: [...] }', JSON.stringify({ pois })],
  ])('imports %s', async (_n, content) => {
    const ds = await newDataset();
    const res = await importFile(provider, ds, 'json', 'p.json', content);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ imported_count: 2, total_count: 3, skipped_count: 1 });
    expect(res.json().skipped[0]).toEqual({ line: 3, field: 'row', reason: 'POIはオブジェクトで指定してください' });
    expect((await poisOf(ds)).find((p) => p.name === '日本語キー')).toMatchObject({ latitude: 34.5, tags: ['x', 'y'] });
  });

  it('imports a GeoJSON FeatureCollection of Points and reports other geometries', async () => {
    const ds = await newDataset();
    const geo = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [139.7671, 35.6812] }, properties: { name: '東京駅', category: '駅' } },
        { type: 'Feature', geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] }, properties: { name: '線' } },
      ],
    };
    const res = await importFile(provider, ds, 'json', 'p.geojson', JSON.stringify(geo));
    expect(res.json()).toMatchObject({ imported_count: 1, total_count: 2, skipped: [{ line: 2, field: 'geometry', reason: 'Point以外のジオメトリは取り込めません' }] });
    expect((await poisOf(ds))[0]).toMatchObject({ name: '東京駅', latitude: 35.6812, longitude: 139.7671 });
  });
});

describe('export', () => {
  it('round-trips CSV and GeoJSON, with formulas neutralised and numbers untouched', async () => {
    const ds = await newDataset();
    const rows = [
      { name: '=HYPERLINK("http://evil")', latitude: -33.8688, longitude: 151.2093, phone: '+81-3-0000', tags: ['a', 'b'], description: '改行\nと "引用"' },
      { name: '普通の店', latitude: 35.5, longitude: 139.5, address: '東京都, 港区' },
    ];
    for (const r of rows) expect((await api('POST', '/poi/register', provider, { dataset_id: ds, ...r })).statusCode).toBe(200);
    const csv = await api('GET', `/datasets/${ds}/export?format=csv`, provider);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv.body).toContain(',-33.8688,151.2093,');
    expect(csv.body).toContain("'+81-3-0000");

    const back = await newDataset();
    const imported = await importFile(provider, back, 'csv', 'export.csv', csv.rawPayload, 'add');
    expect(imported.json()).toMatchObject({ imported_count: 2, skipped_count: 0 });
    const strip = (list: Array<Record<string, unknown>>) =>
      list.map(({ name, latitude, longitude, address, phone, tags, description }) => ({ name: String(name), latitude, longitude, address, phone, tags, description })).sort((a, b) => a.name.localeCompare(b.name));
    expect(strip(await poisOf(back))).toEqual(strip(await poisOf(ds)));

    const geo = await api('GET', `/datasets/${ds}/export?format=geojson`, provider);
    expect(geo.json().type).toBe('FeatureCollection');
    const back2 = await newDataset();
    expect((await importFile(provider, back2, 'json', 'e.geojson', geo.body, 'add')).json()).toMatchObject({ imported_count: 2 });
    expect(strip(await poisOf(back2))).toEqual(strip(await poisOf(ds)));

    expect((await api('GET', `/datasets/${ds}/export?format=csv`, other)).statusCode).toBe(403);
    expect((await api('GET', `/datasets/${ds}/export?format=xls`, provider)).statusCode).toBe(400);
  });
});

describe('move', () => {
  it('moves between datasets the user manages, updating both counts', async () => {
    const from = await newDataset();
    const to = await newDataset();
    const poi = (await api('POST', '/poi/register', provider, { dataset_id: from, name: '移動する店', latitude: 35, longitude: 139 })).json().data.poi;
    const res = await api('POST', `/poi/move/${poi.poi_id}`, provider, { target_dataset_id: to });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: 'POIを移動しました', data: { poi: { dataset_id: to } } });
    expect((await api('GET', `/datasets/${from}`, provider)).json().data.poi_count).toBe(0);
    expect((await api('GET', `/datasets/${to}`, provider)).json().data.poi_count).toBe(1);
    expect((await api('GET', `/poi/search?dataset_id=${to}&keyword=移動`, provider)).json().data.total).toBe(1);
    const same = await api('POST', `/poi/move/${poi.poi_id}`, provider, { target_dataset_id: to });
    expect(same.statusCode).toBe(400);
    expect(same.json().error.message).toBe('移動先に同じデータセットは指定できません');
  });

  it('refuses a target or a source the user does not manage', async () => {
    const mine = await newDataset();
    const theirs = (await api('POST', '/datasets/public/create', other, { name: '他人', price_per_search: 0 })).json().data.dataset_id;
    const poi = (await api('POST', '/poi/register', provider, { dataset_id: mine, name: 'x', latitude: 1, longitude: 1 })).json().data.poi;
    expect((await api('POST', `/poi/move/${poi.poi_id}`, provider, { target_dataset_id: theirs })).statusCode).toBe(403);
    expect((await api('POST', `/poi/move/${poi.poi_id}`, other, { target_dataset_id: theirs })).statusCode).toBe(403);
    expect((await api('POST', `/poi/move/${poi.poi_id}`, provider, { target_dataset_id: 'nope' })).statusCode).toBe(400);
    expect((await api('POST', '/poi/move/00000000-0000-4000-8000-000000000000', provider, { target_dataset_id: theirs })).statusCode).toBe(404);
    expect(await countOf(mine)).toBe(1);
  });
});

describe('fuzzed files', () => {
  it('never answers 500 and never imports part of a rejected file', async () => {
    const ds = await newDataset();
    const validCsv = Buffer.from(CSV);
    const validJson = Buffer.from(JSON.stringify([{ name: 'A', latitude: 1, longitude: 2 }, { name: 'B', latitude: 3, longitude: 4 }]));
    const mutate = (base: Buffer) =>
      fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), op: fc.constantFrom('set', 'cut', 'dup') }), { maxLength: 6 }).map((ops) => {
        let b = Buffer.from(base);
        for (const o of ops) {
          const i = o.at % Math.max(1, b.length);
          if (o.op === 'set') b[i] = o.byte;
          else if (o.op === 'cut') b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
          else b = Buffer.concat([b.subarray(0, i), b.subarray(i, i + 8), b.subarray(i)]);
        }
        return b;
      });
    const fileArb = fc.oneof(
      fc.tuple(fc.constant('csv'), mutate(validCsv)),
      fc.tuple(fc.constant('json'), mutate(validJson)),
      fc.tuple(fc.constantFrom('csv', 'json'), fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a))),
      fc.tuple(fc.constantFrom('csv', 'json'), fc.string({ maxLength: 300 }).map((s) => Buffer.from(s))),
    );
    await fc.assert(
      fc.asyncProperty(fileArb, async ([format, content]) => {
        const before = await countOf(ds);
        const res = await importFile(provider, ds, format, `f.${format}`, content);
        expect([200, 400]).toContain(res.statusCode);
        const after = await countOf(ds);
        if (res.statusCode === 200) expect(after - before).toBe(res.json().imported_count);
        else expect(after).toBe(before);
      }),
      { numRuns: 120, seed: 7 },
    );
  }, 120_000);
});
