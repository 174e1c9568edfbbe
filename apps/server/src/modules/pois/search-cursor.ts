import { createHmac, timingSafeEqual } from 'node:crypto';
import { keywordWords, type SearchBbox } from '@poi/shared/schemas/pois';
import type { SearchKey } from './pois.repository';

/** What a cursor is bound to: the search's filters (not its page size, which may change between pages). */
export interface CursorScope {
  datasetIds: string[];
  keyword?: string;
  point?: { latitude: number; longitude: number; radius?: number };
  bbox?: SearchBbox;
  /** Folded tags (any order). */
  tags?: string[];
  /** Folded category. */
  category?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// created_at as PostgreSQL prints a timestamptz (ISO DateStyle), microseconds and offset included.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

/** The filters in a canonical form: the same search written differently gives the same scope. */
export function scopeOf(s: CursorScope): string {
  return JSON.stringify([
    [...new Set(s.datasetIds)].sort(),
    s.keyword ? keywordWords(s.keyword).sort() : [],
    s.point ? [s.point.latitude, s.point.longitude, s.point.radius ?? null] : null,
    // Appended only when given, so that the cursors and cached totals of searches without them are unchanged.
    ...(s.bbox || s.tags?.length || s.category !== undefined ? [s.bbox ?? null, s.tags?.length ? [...new Set(s.tags)].sort() : null, s.category ?? null] : []),
  ]);
}

export interface CursorCodec {
  encode(key: SearchKey, scope: CursorScope): string;
  /** The key of a cursor issued for this scope; undefined when it is malformed, altered or from another search. */
  decode(cursor: string, scope: CursorScope): SearchKey | undefined;
}

/**
 * Opaque cursors: the position (base64url JSON) and an HMAC of it together with the search's
 * filters, under a key derived from APP_SECRET. A cursor cannot be forged or edited, and one
 * issued for another search (other datasets, keyword or point) is refused rather than continuing
 * somewhere arbitrary. Instances sharing APP_SECRET accept each other's cursors.
 */
export function createCursorCodec(secret: string): CursorCodec {
  const key = createHmac('sha256', secret).update('poi-search-cursor/v1').digest();
  // One update of the joined text (the same bytes): each update call cost more than hashing its bytes.
  const sign = (payload: string, scope: CursorScope) => createHmac('sha256', key).update(`${payload}\n${scopeOf(scope)}`).digest().subarray(0, 16);
  return {
    encode(position, scope) {
      const payload = Buffer.from(
        JSON.stringify('knn' in position ? { d: position.knn, i: position.id, ...(position.memory ? { m: 1 } : {}) } : { t: position.ts, i: position.id, ...(position.rank === undefined ? {} : { r: position.rank }) }),
      ).toString('base64url');
      return `${payload}.${sign(payload, scope).toString('base64url')}`;
    },
    decode(cursor, scope) {
      const [payload, mac, extra] = cursor.split('.');
      if (!payload || !mac || extra !== undefined) return undefined;
      const given = Buffer.from(mac, 'base64url');
      const expected = sign(payload, scope);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      const v = value as { d?: unknown; t?: unknown; i?: unknown; r?: unknown; m?: unknown };
      if (typeof v.i !== 'string' || !UUID.test(v.i)) return undefined;
      // A cursor of a point search continues a point search, and the other way round.
      if (scope.point) {
        if (typeof v.d !== 'number' || !Number.isFinite(v.d) || v.d < 0 || (v.m !== undefined && v.m !== 1)) return undefined;
        return v.m === 1 ? { knn: v.d, id: v.i, memory: true } : { knn: v.d, id: v.i };
      }
      if (typeof v.t !== 'string' || !TIMESTAMP.test(v.t)) return undefined;
      // A keyword search without a point is ranked (exact, prefix, other: 0–2); a list is not.
      const keyword = !!scope.keyword && keywordWords(scope.keyword).length > 0;
      if (!keyword) return v.r === undefined ? { ts: v.t, id: v.i } : undefined;
      return v.r === 0 || v.r === 1 || v.r === 2 ? { ts: v.t, id: v.i, rank: v.r } : undefined;
    },
  };
}
