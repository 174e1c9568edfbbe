import { gunzipSync, gzipSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { bearer, withTestContext, type Actor, type TestContext } from './helpers';

/** Import/export round trip, modes, gzip, encodings, messages, and multipart abuse refused before any row is written. */
let ctx: TestContext;
let provider: Actor;
let other: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer | string };
function multipart(parts: Part[]) {
  const boundary = `----rt${Math.random().toString(36).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
      chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
      chunks.push(Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
const post = (who: Actor, parts: Part[]) => {
  const body = multipart(parts);
  return ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(who.token), ...body.headers }, payload: body.payload });
};
const importFile = (ds: string, format: 'csv' | 'json', filename: string, content: Buffer | string, mode?: 'add' | 'update' | 'replace') =>
  post(provider, [
    { name: 'dataset_id', value: ds },
    { name: 'format', value: format },
    ...(mode ? [{ name: 'mode', value: mode }] : []),
    { name: 'file', filename, content },
  ]);

const newDataset = (name = `往復 ${Math.random()}`) => ctx.newDataset(provider, { name });
const countOf = async (ds: string) => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds]))[0]!.n;
const poiCountOf = async (ds: string) => (await api('GET', `/datasets/${ds}`, provider)).json().data.poi_count as number;

const FIELDS = ['name', 'latitude', 'longitude', 'address', 'category', 'description', 'phone', 'website', 'image_url', 'tags'] as const;
type Stored = Record<(typeof FIELDS)[number], unknown> & { poi_id: string };
async function storedOf(ds: string): Promise<Stored[]> {
  const rows = await ctx.query<Record<string, unknown>>(
    'SELECT id AS poi_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags FROM pois WHERE dataset_id = $1',
    [ds],
  );
  return rows.map((r) => ({ ...r, latitude: Number(r.latitude), longitude: Number(r.longitude) }) as Stored);
}
/** The fields of every POI, without ids, in a stable order: what a round trip must keep. */
const fieldsOf = (rows: Stored[]) =>
  rows.map((r) => JSON.stringify(FIELDS.map((f) => r[f]))).sort();

withTestContext({}, async (opened) => {
  ctx = opened;
  provider = await ctx.newProvider('provider');
  other = await ctx.newProvider('other');
});

describe('export → import is lossless (full-width formula starters included)', () => {
  it("gives back cells starting with ' = + - @ ＝ ＋ － ＠ and tags holding , | and \\ byte for byte", async () => {
    const ds = await newDataset();
    const pois = [
      { name: '@cosme TOKYO', phone: '+81-3-1234-5678', tags: ['a,b', 'c|d', 'e\\f', '＝全角'], latitude: 35.123456, longitude: 139.654321 },
      { name: "'quoted' shop", description: '-1 の説明', category: '＠カテゴリ', address: '＋住所', tags: ["'tag"], latitude: -33.8688, longitude: 151.2093 },
      { name: '＝SUM(A1)', description: '=HYPERLINK("http://evil")', phone: '－0', latitude: 0.000001, longitude: -0.000001 },
    ];
    for (const p of pois) expect((await api('POST', '/poi/register', provider, { dataset_id: ds, ...p })).statusCode).toBe(200);
    const csv = await api('GET', `/datasets/${ds}/export?format=csv`, provider);
    // Still safe in a spreadsheet: no cell starts with a formula character.
    const cells = (parseCsv(csv.body, { bom: true }) as string[][]).flat();
    for (const cell of cells.filter((c) => !/^-?\d+(\.\d+)?$/.test(c))) expect(cell).not.toMatch(/^[=+\-@＝＋－＠\t\r]/);
    expect(csv.body).toContain("'＝SUM(A1)");
    expect(csv.body).toContain("''quoted' shop");
    const back = await newDataset();
    const res = await importFile(back, 'csv', 'export.csv', csv.rawPayload, 'add');
    expect(res.json()).toMatchObject({ imported_count: 3, skipped_count: 0 });
    expect(fieldsOf(await storedOf(back))).toEqual(fieldsOf(await storedOf(ds)));
  });

  const hardText = fc.string({
    unit: fc.constantFrom('a', 'Z', '1', 'あ', '漢', 'ｶ', 'ﾟ', '😀', '𠮷', '"', ',', '|', '\\', '\n', '\r\n', "'", '=', '+', '-', '@', '＝', '＋', '－', '＠', ' ', '\t', '、', ';'),
    minLength: 1,
    maxLength: 12,
  });
  const coordinate = (max: number) => fc.integer({ min: -max * 1e6, max: max * 1e6 }).map((n) => n / 1e6);
  const poiArb = fc.record(
    {
      name: hardText,
      latitude: coordinate(90),
      longitude: coordinate(180),
      address: hardText,
      category: hardText,
      description: hardText,
      phone: hardText,
      website: fc.constantFrom('https://example.com/a,b|c', "https://例え.jp/パス?q='x'", 'http://x.test/=1'),
      image_url: fc.constantFrom('https://example.com/i.png'),
      tags: fc.array(hardText, { maxLength: 4 }),
    },
    { requiredKeys: ['name', 'latitude', 'longitude'] },
  );

  for (const format of ['csv', 'geojson'] as const) {
    it(`property: random POIs with every hard value → ${format} export → import into a new dataset → identical field by field`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(poiArb, { minLength: 1, maxLength: 4 }), async (pois) => {
          const ds = await newDataset();
          let registered = 0;
          for (const p of pois) {
            // Values the API itself refuses (all blank after trimming) are not part of the property.
            if ((await api('POST', '/poi/register', provider, { dataset_id: ds, ...p })).statusCode === 200) registered += 1;
          }
          fc.pre(registered > 0);
          const exported = await api('GET', `/datasets/${ds}/export?format=${format}`, provider);
          const back = await newDataset();
          const res = await importFile(back, format === 'csv' ? 'csv' : 'json', `e.${format}`, exported.rawPayload, 'add');
          expect(res.json()).toMatchObject({ imported_count: registered, skipped_count: 0 });
          expect(fieldsOf(await storedOf(back))).toEqual(fieldsOf(await storedOf(ds)));
        }),
        { numRuns: 25, seed: 19 },
      );
    }, 120_000);
  }
});

describe('import modes', () => {
  it('re-importing an export in the default update mode changes nothing and duplicates nothing', async () => {
    const ds = await newDataset();
    for (let i = 0; i < 5; i++) await api('POST', '/poi/register', provider, { dataset_id: ds, name: `店${i}`, latitude: 35 + i / 100, longitude: 139 });
    const csv = await api('GET', `/datasets/${ds}/export?format=csv`, provider);
    const res = await importFile(ds, 'csv', 'export.csv', csv.rawPayload);
    expect(res.json()).toMatchObject({ added_count: 0, updated_count: 0, unchanged_count: 5, deleted_count: 0, imported_count: 5, skipped_count: 0 });
    expect(await countOf(ds)).toBe(5);
    expect(await poiCountOf(ds)).toBe(5);
  });

  it('re-sent identical rows are unchanged: not counted as updated, updated_at and the search change log untouched; changed rows are', async () => {
    const ds = await newDataset();
    const rows = Array.from({ length: 100 }, (_, i) => `店${i},${35 + i / 1000},139,住所${i},,,,,,a|b`);
    const first = await importFile(ds, 'csv', 'h.csv', `name,latitude,longitude,address,category,description,phone,website,image_url,tags\n${rows.join('\n')}\n`, 'add');
    expect(first.json()).toMatchObject({ added_count: 100, updated_count: 0, unchanged_count: 0 });
    const csv = (await api('GET', `/datasets/${ds}/export?format=csv`, provider)).body;
    const stamps = async () => new Map((await ctx.query<{ id: string; t: string }>('SELECT id, updated_at::text AS t FROM pois WHERE dataset_id = $1', [ds])).map((r) => [r.id, r.t]));
    const logged = async () => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM search_changes WHERE dataset_id = $1', [ds]))[0]!.n;
    const before = await stamps();
    const logBefore = await logged();
    const again = await importFile(ds, 'csv', 'export.csv', csv);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ added_count: 0, updated_count: 0, unchanged_count: 100, deleted_count: 0, imported_count: 100, total_count: 100, skipped_count: 0 });
    expect(await stamps()).toEqual(before);
    expect(await logged()).toBe(logBefore);
    // Three rows edited (a name, a coordinate, a tag): exactly those are updated and logged.
    const table = parseCsv(csv, { bom: true }) as string[][];
    const col = (name: string) => table[0]!.indexOf(name);
    const edited = [1, 2, 3].map((i) => table[i]![col('poi_id')]!);
    table[1]![col('name')] = `新${table[1]![col('name')]}`;
    table[2]![col('latitude')] = '34.5';
    table[3]![col('tags')] = 'a|c';
    const changed = await importFile(ds, 'csv', 'edited.csv', table.map((r) => r.join(',')).join('\n'));
    expect(changed.json()).toMatchObject({ added_count: 0, updated_count: 3, unchanged_count: 97, imported_count: 100 });
    const after = await stamps();
    for (const [id, t] of before) {
      if (edited.includes(id)) expect(after.get(id)).not.toBe(t);
      else expect(after.get(id)).toBe(t);
    }
    const log = await ctx.query<{ poi_id: string }>('SELECT poi_id FROM search_changes WHERE dataset_id = $1 ORDER BY seq OFFSET $2', [ds, logBefore]);
    expect(log.map((r) => r.poi_id).sort()).toEqual([...edited].sort());
  });

  it('property: export → edit → import in update mode → no duplicates, edits applied, new rows added', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ rename: fc.boolean(), suffix: fc.string({ minLength: 1, maxLength: 5 }).filter((s) => s.trim() !== '') }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        async (edits, addOne) => {
          const ds = await newDataset();
          for (let i = 0; i < edits.length; i++) await api('POST', '/poi/register', provider, { dataset_id: ds, name: `元${i}`, latitude: 35, longitude: 139 + i / 1000, tags: ['x,y'] });
          const geo = (await api('GET', `/datasets/${ds}/export?format=geojson`, provider)).json();
          const expected = new Map<string, string>();
          geo.features.forEach((f: { properties: { poi_id: string; name: string } }, i: number) => {
            if (edits[i]!.rename) f.properties.name = `${f.properties.name}${edits[i]!.suffix}`.trim();
            expected.set(f.properties.poi_id, f.properties.name);
          });
          if (addOne) geo.features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [135, 34] }, properties: { name: '新規' } });
          const res = await importFile(ds, 'json', 'edited.geojson', JSON.stringify(geo), 'update');
          const renamed = edits.filter((e) => e.rename).length;
          expect(res.json()).toMatchObject({ updated_count: renamed, unchanged_count: edits.length - renamed, added_count: addOne ? 1 : 0, skipped_count: 0 });
          const stored = await storedOf(ds);
          expect(stored).toHaveLength(edits.length + (addOne ? 1 : 0));
          for (const [id, name] of expected) expect(stored.find((s) => s.poi_id === id)).toMatchObject({ name, tags: ['x,y'] });
          expect(await poiCountOf(ds)).toBe(stored.length);
        },
      ),
      { numRuns: 15, seed: 4 },
    );
  }, 120_000);

  it('update mode: a poi_id of another dataset is a row error; an unknown one is added; add mode ignores poi_id', async () => {
    const mine = await newDataset();
    const theirs = await newDataset();
    const foreign = (await api('POST', '/poi/register', provider, { dataset_id: theirs, name: '他', latitude: 1, longitude: 1 })).json().data.poi.poi_id;
    const csv = `poi_id,name,latitude,longitude\n${foreign},他の行,35,139\n00000000-0000-4000-8000-000000000000,未知,35,139\nnot-a-uuid,壊れたID,35,139\n,新規,35,139\n`;
    const res = await importFile(mine, 'csv', 'u.csv', csv, 'update');
    expect(res.json()).toMatchObject({
      added_count: 2,
      updated_count: 0,
      skipped: [
        { line: 2, field: 'poi_id', reason: 'このPOI IDは別のデータセットのPOIです' },
        { line: 4, field: 'poi_id', reason: 'POI IDはUUIDの形式で指定してください' },
      ],
    });
    expect((await storedOf(theirs))[0]).toMatchObject({ name: '他' });
    const added = await importFile(mine, 'csv', 'a.csv', `poi_id,name,latitude,longitude\n${foreign},追加,35,139\n`, 'add');
    expect(added.json()).toMatchObject({ added_count: 1, updated_count: 0 });
    expect(await countOf(mine)).toBe(3);
  });

  it('replace mode makes the dataset what the file holds, in one transaction; a file without valid rows deletes nothing', async () => {
    const ds = await newDataset();
    const ids: string[] = [];
    for (const name of ['残す', '消える', '消える2']) ids.push((await api('POST', '/poi/register', provider, { dataset_id: ds, name, latitude: 35, longitude: 139 })).json().data.poi.poi_id);
    const refused = await importFile(ds, 'csv', 'r.csv', 'name,latitude,longitude\n,91,0\n', 'replace');
    expect(refused.statusCode).toBe(400);
    expect(await countOf(ds)).toBe(3);
    // ids[1] is named unchanged: kept (an equal row is not rewritten, yet it belongs to the file).
    const res = await importFile(ds, 'csv', 'r.csv', `poi_id,name,latitude,longitude\n${ids[0]},残した,35,139\n${ids[1]},消える,35,139\n,新しい,34,135\n`, 'replace');
    expect(res.json()).toMatchObject({ added_count: 1, updated_count: 1, unchanged_count: 1, deleted_count: 1, imported_count: 3 });
    const stored = await storedOf(ds);
    expect(stored.map((s) => s.name).sort()).toEqual(['新しい', '消える', '残した'].sort());
    expect(stored.find((s) => s.name === '残した')!.poi_id).toBe(ids[0]);
    expect(await poiCountOf(ds)).toBe(3);
  });

  it('refuses an unknown mode', async () => {
    const ds = await newDataset();
    const res = await post(provider, [
      { name: 'dataset_id', value: ds },
      { name: 'format', value: 'csv' },
      { name: 'mode', value: 'merge' },
      { name: 'file', filename: 'a.csv', content: 'name,latitude,longitude\na,1,1\n' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('取り込み方法は add、update、replace のいずれかを指定してください');
  });
});

describe('encodings and compression', () => {
  const sjisAfterAscii = () => {
    const ascii = Array.from({ length: 3000 }, (_, i) => `SHOP-${String(i).padStart(5, '0')},35.${i % 1000},139.5,ASCII-ONLY-ADDRESS-${i}`).join('\r\n');
    return iconv.encode(`name,latitude,longitude,address\r\n${ascii}\r\n東京タワー,35.658584,139.745431,東京都港区芝公園\r\n髙島屋①,35.1,139.1,﨑\r\n`, 'cp932');
  };

  it('reads a Shift_JIS file whose first Japanese character comes after the first 64 KB', async () => {
    const file = sjisAfterAscii();
    expect(file.indexOf(Buffer.from([0x93]))).toBeGreaterThan(64 * 1024);
    const ds = await newDataset();
    const res = await importFile(ds, 'csv', 'excel.csv', file);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ imported_count: 3002, skipped_count: 0 });
    const names = (await storedOf(ds)).map((s) => s.name);
    expect(names).toContain('東京タワー');
    expect(names).toContain('髙島屋①');
  });

  it('imports gzip-compressed CSV (Shift_JIS too) and JSON, and offers the export compressed', async () => {
    const ds = await newDataset('圧縮 データ');
    const res = await importFile(ds, 'csv', 'excel.csv.gz', gzipSync(sjisAfterAscii()));
    expect(res.json()).toMatchObject({ imported_count: 3002 });
    const plain = await api('GET', `/datasets/${ds}/export?format=csv`, provider);
    const packed = await api('GET', `/datasets/${ds}/export?format=csv&compress=gzip`, provider);
    expect(packed.headers['content-type']).toBe('application/gzip');
    expect(packed.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent('圧縮 データ.csv.gz')}`);
    expect(gunzipSync(packed.rawPayload).equals(plain.rawPayload)).toBe(true);
    const back = await newDataset();
    expect((await importFile(back, 'csv', 'e.csv.gz', packed.rawPayload, 'add')).json()).toMatchObject({ imported_count: 3002 });
    const geo = await api('GET', `/datasets/${ds}/export?format=geojson&compress=gzip`, provider);
    const back2 = await newDataset();
    expect((await importFile(back2, 'json', 'e.geojson.gz', geo.rawPayload, 'add')).json()).toMatchObject({ imported_count: 3002 });
  });

  it('answers 413 to a gzip file expanding past 100 MB (a zip bomb) at once, writing nothing', async () => {
    const ds = await newDataset();
    const bomb = gzipSync(Buffer.concat([Buffer.from('name,latitude,longitude\n'), Buffer.alloc(101 * 1024 * 1024, 0x61)]), { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    const res = await importFile(ds, 'csv', 'bomb.csv.gz', bomb);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toBe('展開後のファイルサイズが100MBを超えています');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await countOf(ds)).toBe(0);
  });

  it('refuses a broken gzip file with a Japanese message', async () => {
    const ds = await newDataset();
    const res = await importFile(ds, 'csv', 'x.csv.gz', gzipSync('name,latitude,longitude\na,1,1\n').subarray(0, 20));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('gzipファイルを展開できませんでした。ファイルが壊れていないか確認してください');
  });

  it('names the export after the dataset (RFC 5987) with an ASCII fallback', async () => {
    const ds = await newDataset('東京 カフェ');
    const res = await api('GET', `/datasets/${ds}/export?format=geojson`, provider);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="dataset-${ds}.geojson"; filename*=UTF-8''${encodeURIComponent('東京 カフェ.geojson')}`);
  });
});

describe('row errors and messages', () => {
  it('a stray quote (35°39\'31"N) is that row\'s error or plain text; the rest is imported', async () => {
    const ds = await newDataset();
    const csv = 'name,latitude,longitude,description\nA,35°39\'31"N,139,\nB,35,139,北緯35°39\'31"N\nC,35.1,139.1,\n';
    const res = await importFile(ds, 'csv', 'q.csv', csv);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ imported_count: 2, skipped: [{ line: 2, field: 'latitude', reason: '緯度は数値で入力してください' }] });
    expect((await storedOf(ds)).find((s) => s.name === 'B')!.description).toBe('北緯35°39\'31"N');
  });

  it('normalises full-width coordinates, says "数値で" for non-numbers, Japanese type errors, spreadsheet row numbers', async () => {
    const ds = await newDataset();
    const csv = 'name,latitude,longitude\n全角,３５．６８１２３６,－１３９．７６７１２５\n\n文字,abc,139\nカンマ,"35,68",139\n空,,139\n';
    const res = await importFile(ds, 'csv', 'm.csv', csv);
    expect(res.json()).toMatchObject({
      imported_count: 1,
      skipped: [
        // Row 3 is the empty line, as a spreadsheet shows it.
        { line: 4, field: 'latitude', reason: '緯度は数値で入力してください' },
        { line: 5, field: 'latitude', reason: '緯度は数値で入力してください' },
        { line: 6, field: 'latitude', reason: '緯度を入力してください' },
      ],
    });
    expect((await storedOf(ds))[0]).toMatchObject({ latitude: 35.681236, longitude: -139.767125 });
    const json = await importFile(ds, 'json', 'p.json', JSON.stringify([{ name: 'x', latitude: 1, longitude: 1, phone: 312345678 }, { name: 7, latitude: 1, longitude: 1 }]));
    expect(json.json().errors).toEqual([
      { field: '1:phone', message: '1行目 電話番号は文字列で入力してください' },
      { field: '2:name', message: '2行目 名称は文字列で入力してください' },
    ]);
  });

  it('accepts the file part before dataset_id and format', async () => {
    const ds = await newDataset();
    const res = await post(provider, [
      { name: 'file', filename: 'a.csv', content: 'name,latitude,longitude\n先,35,139\n' },
      { name: 'format', value: 'csv' },
      { name: 'dataset_id', value: ds },
    ]);
    expect(res.statusCode).toBe(200);
    expect(await countOf(ds)).toBe(1);
  });
});

describe('multipart abuse is refused before any row is written', () => {
  const csv = 'name,latitude,longitude\n一,35,139\n二,35,139\n';
  it('two file parts → 400, nothing written', async () => {
    const ds = await newDataset();
    const res = await post(provider, [
      { name: 'dataset_id', value: ds },
      { name: 'format', value: 'csv' },
      { name: 'file', filename: 'a.csv', content: csv },
      { name: 'file', filename: 'b.csv', content: csv },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('ファイルは1つだけ送信してください');
    expect(await countOf(ds)).toBe(0);
    expect(await poiCountOf(ds)).toBe(0);
  });

  it('more than ten form fields before the file → 413, nothing written', async () => {
    const ds = await newDataset();
    const extra = Array.from({ length: 11 }, (_, i) => ({ name: `x${i}`, value: 'y' }));
    const res = await post(provider, [{ name: 'dataset_id', value: ds }, { name: 'format', value: 'csv' }, ...extra, { name: 'file', filename: 'a.csv', content: csv }]);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toBe('フォームの項目が多すぎます。dataset_id、format、mode、file のみを送信してください');
    expect(await countOf(ds)).toBe(0);
  });

  it('someone else cannot import into the dataset, whatever the mode', async () => {
    const ds = await newDataset();
    const res = await post(other, [
      { name: 'dataset_id', value: ds },
      { name: 'format', value: 'csv' },
      { name: 'mode', value: 'replace' },
      { name: 'file', filename: 'a.csv', content: csv },
    ]);
    expect(res.statusCode).toBe(403);
  });
});
