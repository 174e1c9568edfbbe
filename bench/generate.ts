/**
 * A deterministic generator of POIs over Japan: most of them clustered around cities (denser
 * in the big ones), the rest spread over the main islands, with Japanese names, addresses,
 * categories and tags. The same seed always gives the same POIs.
 */

export interface GeneratedPoi {
  name: string;
  latitude: number;
  longitude: number;
  address: string;
  category: string;
  tags: string[];
}

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface City {
  name: string;
  pref: string;
  lat: number;
  lon: number;
  weight: number;
  /** Spread in degrees (about 1° ≈ 100 km). */
  spread: number;
}

export const CITIES: City[] = [
  { name: '東京', pref: '東京都', lat: 35.6812, lon: 139.7671, weight: 30, spread: 0.12 },
  { name: '横浜', pref: '神奈川県', lat: 35.4658, lon: 139.6223, weight: 8, spread: 0.08 },
  { name: '大阪', pref: '大阪府', lat: 34.7025, lon: 135.4959, weight: 14, spread: 0.1 },
  { name: '名古屋', pref: '愛知県', lat: 35.1709, lon: 136.8815, weight: 8, spread: 0.08 },
  { name: '札幌', pref: '北海道', lat: 43.0687, lon: 141.3508, weight: 5, spread: 0.08 },
  { name: '福岡', pref: '福岡県', lat: 33.5902, lon: 130.4207, weight: 5, spread: 0.07 },
  { name: '京都', pref: '京都府', lat: 35.0116, lon: 135.7681, weight: 4, spread: 0.05 },
  { name: '神戸', pref: '兵庫県', lat: 34.6901, lon: 135.1955, weight: 4, spread: 0.05 },
  { name: '仙台', pref: '宮城県', lat: 38.2682, lon: 140.8694, weight: 3, spread: 0.06 },
  { name: '広島', pref: '広島県', lat: 34.3853, lon: 132.4553, weight: 3, spread: 0.05 },
  { name: '那覇', pref: '沖縄県', lat: 26.2124, lon: 127.6809, weight: 1.5, spread: 0.04 },
  { name: '金沢', pref: '石川県', lat: 36.5613, lon: 136.6562, weight: 1.5, spread: 0.04 },
  { name: '稚内', pref: '北海道', lat: 45.4156, lon: 141.6731, weight: 0.02, spread: 0.03 },
];

/** Rough boxes of the main islands for the rural rest. */
const LAND: Array<[number, number, number, number]> = [
  [33.5, 37.5, 132.0, 140.8],
  [37.5, 41.3, 139.5, 141.8],
  [41.5, 45.3, 140.0, 145.3],
  [31.2, 33.8, 129.7, 131.8],
  [32.8, 34.3, 132.5, 134.6],
];

const CATEGORIES = ['カフェ', 'ラーメン', '寿司', 'コンビニ', '書店', '公園', '病院', '駅', 'ホテル', '美術館', '居酒屋', 'ベーカリー', '薬局', '神社', '温泉'];
const PREFIXES = ['さくら', 'みどり', 'ひかり', 'あおば', '中央', '本町', '駅前', '新町', '港', '丘の上', 'ABC', 'Blue', 'グリーン', 'スマイル', '大通り'];
const SUFFIXES = ['本店', '支店', '一号店', '二号店', '', '', 'プラザ', 'センター', 'ハウス'];
const TAGS = ['Wi-Fi', '駐車場', '禁煙', 'テイクアウト', '24時間', 'ペット可', 'カード可', '個室'];

export function* generatePois(n: number, seed = 20261122): Generator<GeneratedPoi> {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const totalWeight = CITIES.reduce((s, c) => s + c.weight, 0);
  const gauss = () => {
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  for (let i = 0; i < n; i++) {
    let lat: number;
    let lon: number;
    let place: string;
    let pref: string;
    if (rand() < 0.85) {
      let r = rand() * totalWeight;
      let city = CITIES[0]!;
      for (const c of CITIES) {
        r -= c.weight;
        if (r <= 0) {
          city = c;
          break;
        }
      }
      lat = city.lat + gauss() * city.spread;
      lon = city.lon + gauss() * city.spread * 1.2;
      place = city.name;
      pref = city.pref;
    } else {
      const [la0, la1, lo0, lo1] = pick(LAND);
      lat = la0 + rand() * (la1 - la0);
      lon = lo0 + rand() * (lo1 - lo0);
      place = pick(['山田', '川口', '森', '高原', '海辺', '里山']);
      pref = '地方';
    }
    const category = pick(CATEGORIES);
    const name = `${pick(PREFIXES)}${category}${place === '稚内' ? ' 稚内' : ''} ${pick(SUFFIXES)}`.trim();
    const tagCount = Math.floor(rand() * 3);
    const tags = Array.from({ length: tagCount }, () => pick(TAGS)).filter((t, j, a) => a.indexOf(t) === j);
    yield {
      name,
      latitude: Math.round(Math.min(89.9, Math.max(-89.9, lat)) * 1e6) / 1e6,
      longitude: Math.round(lon * 1e6) / 1e6,
      address: `${pref}${place}市${1 + Math.floor(rand() * 9)}丁目${1 + Math.floor(rand() * 30)}-${1 + Math.floor(rand() * 20)}`,
      category,
      tags,
    };
  }
}
