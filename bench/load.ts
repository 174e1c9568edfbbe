import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyLine as poiCopyLine, POI_COPY_COLUMNS as COPY_COLUMNS, toPoiColumns } from '../apps/server/src/modules/pois/pois.repository';
import type { GeneratedPoi } from './generate';

/** One POI as a line of COPY text format, exactly as the server's import streams it. */
const copyLine = (datasetId: string, p: GeneratedPoi): string =>
  poiCopyLine(datasetId, toPoiColumns({ name: p.name, latitude: p.latitude, longitude: p.longitude, address: p.address, category: p.category, tags: p.tags }));

export function* lines(datasetId: string, pois: Iterable<GeneratedPoi>, batch = 2000): Generator<string> {
  let buf: string[] = [];
  for (const p of pois) {
    buf.push(copyLine(datasetId, p));
    if (buf.length === batch) {
      yield buf.join('');
      buf = [];
    }
  }
  if (buf.length) yield buf.join('');
}

export async function copyIntoPostgres(client: pg.PoolClient, datasetId: string, pois: Iterable<GeneratedPoi>): Promise<void> {
  const stream = client.query(copyFrom(`COPY pois (${COPY_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(lines(datasetId, pois)), stream);
}

/** COPY of lines already in COPY text format: the bare cost of storing rows, nothing computed. */
export async function copyChunksIntoPostgres(client: pg.PoolClient, chunks: string[]): Promise<void> {
  const stream = client.query(copyFrom(`COPY pois (${COPY_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(chunks), stream);
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
