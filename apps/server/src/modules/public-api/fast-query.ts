import { POI_SEARCH_DEFAULT_LIMIT, POI_SEARCH_MAX_LIMIT } from '@poi/shared/limits';
import { SEARCH_OFFSET_MAX, SEARCH_RADIUS_MAX, SEARCH_RADIUS_MIN, type publicPoiSearchQuerySchema } from '@poi/shared/schemas/pois';
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

type PublicSearchQuery = z.output<typeof publicPoiSearchQuerySchema>;

/** A UUID as z.uuid accepts it, lowercase only (anything else goes to the schema). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The schema's decimal (shared/schemas/pois.ts DECIMAL), without the blanks it would trim. */
const DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;
const INTEGER = /^\d{1,9}$/;

const decimal = (v: unknown, min: number, max: number): number | undefined => {
  if (typeof v !== 'string' || !DECIMAL.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};
const integer = (v: unknown, min: number, max: number): number | undefined => {
  if (typeof v !== 'string' || !INTEGER.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};

/**
 * The public search's common query, read without zod: one lowercase dataset_id, and latitude,
 * longitude, radius, limit and offset as plain numbers within their bounds, nothing else. Answers
 * exactly what publicPoiSearchQuerySchema answers for such a query (fast-query.test.ts compares
 * them), or undefined for anything else — another parameter, a list, a blank, a value out of
 * range, a radius without a point — which the schema then reads, and words the errors of.
 * zod cost about 3 % of a point search's server CPU, most of it for these few fields.
 */
export function fastSearchQuery(query: unknown): PublicSearchQuery | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const q = query as Record<string, unknown>;
  let keys = 0;
  for (const key in q) {
    if (key !== 'dataset_id' && key !== 'latitude' && key !== 'longitude' && key !== 'radius' && key !== 'limit' && key !== 'offset') return undefined;
    keys += 1;
  }
  const id = q.dataset_id;
  if (typeof id !== 'string' || !UUID.test(id)) return undefined;
  const out: PublicSearchQuery = { dataset_id: [id], limit: POI_SEARCH_DEFAULT_LIMIT, offset: 0 };
  let seen = 1;
  if (q.latitude !== undefined || q.longitude !== undefined) {
    const latitude = decimal(q.latitude, -90, 90);
    const longitude = decimal(q.longitude, -180, 180);
    if (latitude === undefined || longitude === undefined) return undefined;
    out.latitude = latitude;
    out.longitude = longitude;
    seen += 2;
  }
  if (q.radius !== undefined) {
    const radius = decimal(q.radius, SEARCH_RADIUS_MIN, SEARCH_RADIUS_MAX);
    if (radius === undefined || out.latitude === undefined) return undefined;
    out.radius = radius;
    seen += 1;
  }
  if (q.limit !== undefined) {
    const limit = integer(q.limit, 1, POI_SEARCH_MAX_LIMIT);
    if (limit === undefined) return undefined;
    out.limit = limit;
    seen += 1;
  }
  if (q.offset !== undefined) {
    const offset = integer(q.offset, 0, SEARCH_OFFSET_MAX);
    if (offset === undefined) return undefined;
    out.offset = offset;
    seen += 1;
  }
  // A key present with the value undefined (not from a query string, but possible) is the schema's to judge.
  return seen === keys ? out : undefined;
}

/** The route's query validator: the common query read by fastSearchQuery, everything else by the zod schema. */
export const fastSearchQueryCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const full = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.httpPart !== 'querystring') return full;
  return (data) => {
    const value = fastSearchQuery(data);
    return value ? { value } : full(data);
  };
};
