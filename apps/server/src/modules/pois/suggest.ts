/**
 * The public API's type-ahead (GET /api/v1/poi/suggest, docs/search.md "Suggest"): the best N POIs
 * of the datasets for what has been typed so far. From memory when every dataset is ready there
 * (suggest-index.ts), else from PostgreSQL's rows ranked by the same code, so both answer alike.
 */
import type { Db } from '../../db/client';
import { answersJson } from './dataset-index';
import { cubeOf } from './dataset-index';
import type { SearchIndex } from './search-index';
import { readSuggestRows, type PoiRow } from './search-changes.repository';
import { matchOf, nameKeyOf, rankOf, suggestQuery, suggestTextOf } from './suggest-keys';
import { suggestionRest, TopSuggestions, type SuggestRequest } from './suggest-index';

export interface SuggestInput {
  datasetIds: string[];
  q: string;
  latitude?: number;
  longitude?: number;
  limit: number;
}

/** Rows per page of the PostgreSQL path. */
const SQL_PAGE = 5_000;

/** Characters a suggest key may hold that its POI's search text need not (suggest-keys.ts's rewrites). */
const REWRITTEN = new Set(['ブ', 'ア', 'イ', 'エ', 'オ', 'ケ', 'ジ', 'ズ', 'フ', 'ハ', 'ヒ', 'ヘ', 'ホ', 'シ', 'ス', 'ツ', 'チ']);
/** A reading's unvoiced key (unvoicedAfterFirst) holds カ where the search text holds カ or ガ. */
const VOICED_OF: Record<string, string> = { カ: 'ガ', キ: 'ギ', ク: 'グ', コ: 'ゴ', サ: 'ザ', セ: 'ゼ', ソ: 'ゾ', タ: 'ダ', テ: 'デ', ト: 'ド' };

/**
 * What the search text of a POI matching the key must hold: for each character the key holds
 * as the text does, that character (or its voiced form); the rewritten ones are left out.
 */
const requiredGroups = (key: string): string[][] =>
  [...new Set([...key].filter((c) => !REWRITTEN.has(c)))].slice(0, 8).map((c) => (VOICED_OF[c] ? [c, VOICED_OF[c]] : [c]));

export interface Suggester {
  /** The answer's body: `{"success":true,"data":{"suggestions":[…]}}` as bytes. */
  suggest(input: SuggestInput): Promise<Buffer>;
  /** Which path answered the last call (tests). */
  lastPath(): 'memory' | 'postgres' | undefined;
}

export function createSuggester(deps: { db: Db; searchIndex?: SearchIndex; onAnswered?: (path: 'memory' | 'postgres') => void }): Suggester {
  let last: 'memory' | 'postgres' | undefined;

  async function fromPostgres(ids: string[], q: SuggestRequest, top: TopSuggestions): Promise<void> {
    const anyOf = q.keys.map(requiredGroups);
    const cube = q.point ? cubeOf(q.point.latitude, q.point.longitude) : undefined;
    let after: string | null = null;
    for (;;) {
      const rows: PoiRow[] = await readSuggestRows(deps.db, ids, anyOf, after, SQL_PAGE);
      for (const row of rows) {
        const text = suggestTextOf(JSON.parse(`${row.head}${row.tail}}`) as Parameters<typeof suggestTextOf>[0], row.search_text);
        const match = matchOf(text, q.keys);
        if (!match || !top.wants(rankOf(match))) continue;
        let knn = 0;
        if (cube) {
          const [x, y, z] = cubeOf(row.latitude, row.longitude);
          const d0 = x - cube[0];
          const d1 = y - cube[1];
          const d2 = z - cube[2];
          let s = d0 * d0;
          s += d1 * d1;
          s += d2 * d2;
          knn = Math.sqrt(s);
        }
        // The answer as the index writes it: head, coordinates in JavaScript's number format, tail.
        const json = Buffer.from(`${row.head},"latitude":${row.latitude},"longitude":${row.longitude}${row.tail}`);
        top.offer({ rank: rankOf(match), match, knn, name: nameKeyOf(text), id: row.id, answer: (rest) => ({ json, start: 0, end: json.length, distance: rest }) });
      }
      if (rows.length < SQL_PAGE) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  return {
    async suggest(input) {
      const ids = [...new Set(input.datasetIds)];
      const point = input.latitude !== undefined && input.longitude !== undefined ? { latitude: input.latitude, longitude: input.longitude } : undefined;
      const q: SuggestRequest = { keys: suggestQuery(input.q).keys, point };
      const top = new TopSuggestions(input.limit, !!point);
      if (q.keys.length) {
        const tables = await deps.searchIndex?.suggestTablesBuilt(ids);
        if (tables) {
          last = 'memory';
          for (const table of tables) table.suggest(q, top);
          deps.onAnswered?.('memory');
        } else {
          last = 'postgres';
          await fromPostgres(ids, q, top);
          deps.onAnswered?.('postgres');
        }
      }
      return answersJson(
        top.list.map((c) => c.answer(suggestionRest(c, !!point))),
        '{"success":true,"data":{"suggestions":',
        '}}',
      );
    },
    lastPath: () => last,
  };
}
