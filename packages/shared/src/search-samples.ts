/**
 * The /docs/api samples of the public search's map and output options (issue 33): one runnable
 * request per capability, shown as curl on the docs page (Japanese and English titles) and sent
 * to the real server by apps/server/test/public-search-viewport.test.ts, so every sample runs.
 * The dataset comes from $POI_DATASET_ID, as in the page's other examples.
 */
export interface SearchSample {
  id: string;
  title: { ja: string; en: string };
  /** Query parameters besides dataset_id, in the order shown. */
  params: Array<[string, string]>;
  /** Request headers besides the key. */
  headers?: Record<string, string>;
}

export const SEARCH_SAMPLES: SearchSample[] = [
  {
    id: 'bbox',
    title: {
      ja: '地図の表示範囲(bbox)で検索: 最小経度,最小緯度,最大経度,最大緯度。緯度・経度を付けると近い順',
      en: 'Search a map viewport (bbox): minLon,minLat,maxLon,maxLat; add latitude and longitude for nearest first',
    },
    params: [
      ['bbox', '139.74,35.66,139.79,35.70'],
      ['latitude', '35.681236'],
      ['longitude', '139.767125'],
      ['limit', '50'],
    ],
  },
  {
    id: 'tags',
    title: { ja: 'タグ(すべてを持つPOI)とカテゴリで絞り込み', en: 'Filter by tags (POIs having all of them) and category' },
    params: [
      ['tags', 'Wi-Fi,電源あり'],
      ['category', 'カフェ'],
    ],
  },
  {
    id: 'geojson',
    title: { ja: 'GeoJSON(FeatureCollection)で受け取る。地図ライブラリにそのまま渡せます', en: 'Get GeoJSON (a FeatureCollection) a map library takes as is' },
    params: [
      ['bbox', '139.74,35.66,139.79,35.70'],
      ['format', 'geojson'],
    ],
  },
  {
    id: 'fields',
    title: { ja: '必要な項目だけを受け取る(fields)', en: 'Only the fields you need (fields)' },
    params: [
      ['keyword', 'カフェ'],
      ['fields', 'id,name,latitude,longitude'],
    ],
  },
];
