import createClient from 'openapi-fetch';
import { errorOf } from './errors.js';
import { retryingFetch, sleep as realSleep, type Sleep } from './retry.js';
import type { operations, paths } from './schema.js';

type SearchOperation = operations['searchPois'];
type SearchQuery = SearchOperation['parameters']['query'];

/**
 * The search's parameters (see /docs/api); `dataset_id` takes one id or up to 10. The answer is
 * always the JSON page (`format=geojson` is not taken here); `fields` trims its POIs, typed.
 */
export type SearchParams = Omit<SearchQuery, 'dataset_id' | 'format' | 'fields'> & { dataset_id: string | string[] };
/** One page of a search: the POIs, the total, and the cursor of the next page (null on the last). */
export type SearchPage<P = Poi> = Omit<FullPage, 'pois'> & { pois: P[] };
type FullPage = SearchOperation['responses'][200]['content']['application/json']['data'];
export type Poi = FullPage['pois'][number];
/** What `fields` may name: a POI's fields, and `id` for poi_id. */
export type PoiField = keyof Poi | 'id';
/** A POI trimmed to `fields` (poi_id is always kept). */
export type PoiWith<F extends PoiField> = Pick<Poi, Exclude<F, 'id'> | 'poi_id'>;
/** A search's parameters with `fields`: the answer's POIs keep only those (smaller bodies). */
export type SearchParamsWithFields<F extends PoiField> = SearchParams & { fields: readonly F[] };
/**
 * A search page as GeoJSON (RFC 7946), as map libraries take it: a Point per POI (longitude,
 * latitude), its id the poi_id and its properties the POI's other fields; the paging beside.
 */
export interface PoiFeatureCollection {
  type: 'FeatureCollection';
  features: Array<{
    type: 'Feature';
    id: string;
    geometry: { type: 'Point'; coordinates: [longitude: number, latitude: number] };
    properties: Omit<Poi, 'latitude' | 'longitude'>;
  }>;
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
}
/** searchAll's parameters: a search's, without the paging it does itself. */
export type SearchAllParams = Omit<SearchParams, 'cursor' | 'offset'>;

type SuggestOperation = operations['getPoiSuggest'];
/** The type-ahead's parameters: what was typed (`q`), the datasets, optionally a point that puts nearer POIs first. */
export type SuggestParams = Omit<SuggestOperation['parameters']['query'], 'dataset_id'> & { dataset_id: string | string[] };
/** The type-ahead's answer: up to `limit` suggestions, best first. */
export type SuggestResult = SuggestOperation['responses'][200]['content']['application/json']['data'];
export type Suggestion = SuggestResult['suggestions'][number];

export interface PoiClientOptions {
  /** The API key (poi_live_…), sent as X-API-Key. */
  apiKey: string;
  /** Where the API is, e.g. https://poi.example.com (the SDK adds /api/v1/…). */
  baseUrl: string;
  /** A fetch of your own (a proxy agent, a test double); globalThis.fetch otherwise. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after a 429 or 503 (default 2; 0 turns them off). Other errors are never retried. */
  maxRetries?: number;
  /** The longest wait before a retry (default 60,000 ms); an answer that asks for longer is thrown at once. */
  maxRetryDelayMs?: number;
  /** Error messages in Japanese (default) or English (Accept-Language). */
  language?: 'ja' | 'en';
  /** How the SDK waits between retries (a test records the waits instead of sleeping). */
  sleep?: Sleep;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the request, a wait between retries, or (searchAll) the walk. */
  signal?: AbortSignal;
}

export interface PoiClient {
  /** One page of a search, its POIs trimmed to `fields`. */
  search<F extends PoiField>(params: SearchParamsWithFields<F>, options?: RequestOptions): Promise<SearchPage<PoiWith<F>>>;
  /** One page of a search. Throws a PoiApiError subclass for an error answer. */
  search(params: SearchParams, options?: RequestOptions): Promise<SearchPage>;
  /**
   * Every POI of a search, page after page along next_cursor (each page a billed search):
   * `for await (const poi of client.searchAll({ dataset_id }))`. `limit` is the page size.
   */
  /** One page of a search as a GeoJSON FeatureCollection (`format=geojson`): same POIs, order and paging. */
  searchGeoJson(params: SearchParams, options?: RequestOptions): Promise<PoiFeatureCollection>;
  searchAll<F extends PoiField>(params: Omit<SearchParamsWithFields<F>, 'cursor' | 'offset'>, options?: RequestOptions): AsyncIterableIterator<PoiWith<F>>;
  searchAll(params: SearchAllParams, options?: RequestOptions): AsyncIterableIterator<Poi>;
  /**
   * POIs for what a person has typed so far (kana, romaji, half-width, mid-conversion), ranked
   * exact → name prefix → reading prefix → contains. Each call is billed (see /docs/api).
   */
  suggest(params: SuggestParams, options?: RequestOptions): Promise<SuggestResult>;
}

const ids = (value: string | string[]): string[] => (Array.isArray(value) ? value : [value]);

/** A client of the POI Cloud public API. */
export function createPoiClient(options: PoiClientOptions): PoiClient {
  if (!options.apiKey) throw new TypeError('apiKey is required');
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('maxRetries must be a whole number ≥ 0');
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), {
      maxRetries,
      maxDelayMs: options.maxRetryDelayMs ?? 60_000,
      sleep: options.sleep ?? realSleep,
    }),
    headers: { 'X-API-Key': options.apiKey, 'Accept-Language': options.language ?? 'ja' },
  });

  // One implementation behind search's two signatures (with and without fields).
  const search = async (params: SearchParams & { fields?: readonly PoiField[] }, requestOptions: RequestOptions = {}): Promise<SearchPage> => {
    const { fields, ...rest } = params;
    const { data, error, response } = await client.GET('/api/v1/poi/search', {
      params: { query: { ...rest, dataset_id: ids(params.dataset_id), ...(fields ? { fields: fields.join(',') } : {}) } },
      signal: requestOptions.signal,
    });
    if (error !== undefined || !data) throw errorOf(response, error);
    return data.data;
  };

  const suggest: PoiClient['suggest'] = async (params, requestOptions = {}) => {
    const { data, error, response } = await client.GET('/api/v1/poi/suggest', {
      params: { query: { ...params, dataset_id: ids(params.dataset_id) } },
      signal: requestOptions.signal,
    });
    if (error !== undefined || !data) throw errorOf(response, error);
    return data.data;
  };

  const searchGeoJson = async (params: SearchParams, requestOptions: RequestOptions = {}): Promise<PoiFeatureCollection> => {
    const { data, error, response } = await client.GET('/api/v1/poi/search', {
      params: { query: { ...params, dataset_id: ids(params.dataset_id), format: 'geojson' } },
      signal: requestOptions.signal,
    });
    if (error !== undefined || !data) throw errorOf(response, error);
    // The document types the JSON answer only; format=geojson answers the collection instead.
    return data as unknown as PoiFeatureCollection;
  };

  async function* searchAll(params: SearchAllParams & { fields?: readonly PoiField[] }, requestOptions: RequestOptions = {}): AsyncIterableIterator<Poi> {
    let cursor: string | undefined;
    do {
      const page = await search({ ...params, ...(cursor ? { cursor } : {}) }, requestOptions);
      yield* page.pois;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  // The overloads only narrow what the same calls answer (a page's POIs trimmed to fields).
  return { search, searchGeoJson, suggest, searchAll } as PoiClient;
}
