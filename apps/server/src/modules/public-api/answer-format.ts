import type { Poi, SearchFormat } from '@poi/shared/schemas/pois';

/** A search answer's data as the default JSON carries it. */
export interface SearchData {
  pois: Poi[];
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
}

/** The q value of each media range of an Accept header (1 when not given). */
function acceptQ(accept: string, type: string): number | undefined {
  let q: number | undefined;
  for (const range of accept.split(',')) {
    const [name, ...params] = range.split(';');
    if (name!.trim().toLowerCase() !== type) continue;
    const given = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const value = given ? Number(given.slice(2)) : 1;
    q = Math.max(q ?? 0, Number.isFinite(value) ? value : 0);
  }
  return q;
}

/**
 * Which answer a request asked for: `format=` wins; otherwise GeoJSON when Accept names
 * application/geo+json with a q above 0 and above application/json's (JSON wins a tie: it is
 * the default); JSON otherwise.
 */
export function answerFormat(format: SearchFormat | undefined, accept: string | undefined): SearchFormat {
  if (format) return format;
  // The common case (no GeoJSON asked for) is one substring test.
  if (accept === undefined || !accept.toLowerCase().includes('application/geo+json')) return 'json';
  const geo = acceptQ(accept, 'application/geo+json') ?? 0;
  return geo > 0 && geo > (acceptQ(accept, 'application/json') ?? 0) ? 'geojson' : 'json';
}

export const GEOJSON_CONTENT_TYPE = 'application/geo+json';

/** The POI with only these fields (poi_id is always among them: the schema adds it). */
function pick(poi: Poi, fields: readonly string[] | undefined, without?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const source = poi as unknown as Record<string, unknown>;
  for (const name of fields ?? Object.keys(source)) {
    if (name in source && !without?.has(name)) out[name] = source[name];
  }
  return out;
}

const COORDINATES = new Set(['latitude', 'longitude']);

/**
 * The answer in the asked shape, as the bytes that go out: JSON with each POI trimmed to
 * `fields`, or a GeoJSON FeatureCollection (RFC 7946) of the same POIs in the same order — each
 * a Point [longitude, latitude] whose id is the poi_id and whose properties are the POI's
 * (trimmed) fields but its coordinates — with total, total_capped and next_cursor as foreign
 * members of the collection. The default JSON answer is not written here (the route writes it
 * without parsing anything).
 */
export function shapeAnswer(data: SearchData, format: SearchFormat, fields: readonly string[] | undefined): string {
  const paging = { total: data.total, total_capped: data.total_capped, next_cursor: data.next_cursor };
  if (format === 'json') return JSON.stringify({ success: true, data: { pois: data.pois.map((p) => pick(p, fields)), ...paging } });
  return JSON.stringify({
    type: 'FeatureCollection',
    features: data.pois.map((p) => ({
      type: 'Feature',
      id: p.poi_id,
      geometry: { type: 'Point', coordinates: [p.longitude, p.latitude] },
      properties: pick(p, fields, COORDINATES),
    })),
    ...paging,
  });
}
