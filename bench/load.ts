import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { arrayLiteral, toPoiColumns } from '../apps/server/src/modules/pois/pois.repository';
import type { GeneratedPoi } from './generate';

const COPY_COLUMNS = 'dataset_id, name, latitude, longitude, address, category, tags, search_text, search_bigrams';

const escapeText = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

/** One POI as a line of COPY text format, with the same derived search columns the server writes. */
export function copyLine(datasetId: string, p: GeneratedPoi): string {
  const c = toPoiColumns({ name: p.name, latitude: p.latitude, longitude: p.longitude, address: p.address, category: p.category, tags: p.tags });
  return [
    datasetId,
    escapeText(c.name),
    String(c.latitude),
    String(c.longitude),
    escapeText(c.address ?? ''),
    escapeText(c.category ?? ''),
    escapeText(arrayLiteral(c.tags)),
    escapeText(c.searchText),
    escapeText(arrayLiteral(c.searchBigrams)),
  ].join('\t');
}

function* lines(datasetId: string, pois: Iterable<GeneratedPoi>, batch = 2000): Generator<string> {
  let buf: string[] = [];
  for (const p of pois) {
    buf.push(copyLine(datasetId, p));
    if (buf.length === batch) {
      yield `${buf.join('\n')}\n`;
      buf = [];
    }
  }
  if (buf.length) yield `${buf.join('\n')}\n`;
}

export async function copyIntoPostgres(client: pg.PoolClient, datasetId: string, pois: Iterable<GeneratedPoi>): Promise<void> {
  const stream = client.query(copyFrom(`COPY pois (${COPY_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(lines(datasetId, pois)), stream);
}

export async function copyIntoPglite(db: PGlite, datasetId: string, pois: Iterable<GeneratedPoi>, chunk = 50_000): Promise<void> {
  let part: string[] = [];
  const flush = async () => {
    if (!part.length) return;
    await db.query(`COPY pois (${COPY_COLUMNS}) FROM '/dev/blob'`, [], { blob: new Blob(part) });
    part = [];
  };
  let count = 0;
  for (const l of lines(datasetId, pois)) {
    part.push(l);
    count += 2000;
    if (count % chunk === 0) await flush();
  }
  await flush();
}
