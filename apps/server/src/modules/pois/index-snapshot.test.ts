import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSnapshots, readSnapshot, readSnapshotMeta, refreshSnapshotPosition, removeSnapshot, writeSnapshot, type IndexSnapshot } from './index-snapshot';

const ID = '0b6f3c2e-5a41-4d7e-9c1a-2f8e6d4b3a10';
const OTHER = '7d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f';
const AT = { position: '1200:1210:1203,1207', takenAt: Date.UTC(2026, 10, 26, 9) };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'poi-snap-unit-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** An index-like snapshot: buffers of odd lengths (padding between them), one empty, one typed array's bytes. */
function fake(): IndexSnapshot {
  const doubles = new Float64Array([35.681236, 139.767125, -0, Number.MAX_VALUE]);
  return {
    header: { format: 7, rows: 3, extra: [{ id: 'x', text: '東京\nカフェ' }] },
    buffers: [Uint8Array.from([1, 2, 3]), new Uint8Array(0), new Uint8Array(doubles.buffer), Buffer.from('索引'.repeat(1000))],
  };
}

const fileOf = (id: string) => path.join(dir, `${id}.snap`);

describe('index snapshot files', () => {
  it('round trip: the header, every buffer byte for byte, each in memory of its own aligned for typed arrays', async () => {
    const s = fake();
    const { bytes, checksum } = await writeSnapshot(dir, ID, AT, 3, 1234, s);
    const read = await readSnapshot(dir, ID);
    if (read.status !== 'ok') throw new Error(JSON.stringify(read));
    expect(read.bytes).toBe(bytes);
    expect(read.meta).toMatchObject({ format: 1, datasetId: ID, position: AT.position, takenAt: AT.takenAt, poiCount: 3, indexBytes: 1234, checksum });
    expect(read.snapshot.header).toEqual(s.header);
    expect(read.snapshot.buffers.map((b) => Buffer.from(b).toString('hex'))).toEqual(s.buffers.map((b) => Buffer.from(b).toString('hex')));
    for (const b of read.snapshot.buffers) expect(b.byteOffset).toBe(0);
    expect(Array.from(new Float64Array(read.snapshot.buffers[2]!.buffer))).toEqual([35.681236, 139.767125, -0, Number.MAX_VALUE]);
    // No temporary file is left beside it.
    expect(readdirSync(dir)).toEqual([`${ID}.snap`]);
  });

  it('a missing file is missing; a damaged, truncated or foreign one is invalid with its reason', async () => {
    expect(await readSnapshot(dir, ID)).toEqual({ status: 'missing' });
    await writeSnapshot(dir, ID, AT, 3, 1, fake());
    const good = readFileSync(fileOf(ID));

    const body = Buffer.from(good);
    body[body.length - 10] = body[body.length - 10]! ^ 1;
    writeFileSync(fileOf(ID), body);
    expect(await readSnapshot(dir, ID)).toEqual({ status: 'invalid', reason: 'its buffers fail their checksum' });

    const header = Buffer.from(good);
    header[30] = header[30]! ^ 1;
    writeFileSync(fileOf(ID), header);
    expect(await readSnapshot(dir, ID)).toEqual({ status: 'invalid', reason: 'its header fails its checksum' });

    writeFileSync(fileOf(ID), good);
    truncateSync(fileOf(ID), good.length - 1);
    expect(await readSnapshot(dir, ID)).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/bytes where its header says/) });

    writeFileSync(fileOf(OTHER), good);
    expect(await readSnapshot(dir, OTHER)).toEqual({ status: 'invalid', reason: `it holds dataset ${ID}` });
    expect(await readSnapshotMeta(dir, OTHER)).toEqual({ status: 'invalid', reason: `it holds dataset ${ID}` });

    writeFileSync(fileOf(ID), Buffer.from('not a snapshot at all, just text'));
    expect(await readSnapshot(dir, ID)).toEqual({ status: 'invalid', reason: 'not a search index snapshot' });
  });

  it('a refresh moves the position in the header alone, and only for the file with that checksum', async () => {
    const { checksum } = await writeSnapshot(dir, ID, AT, 3, 1, fake());
    const later = { position: '1300:1300:', takenAt: AT.takenAt + 600_000 };
    expect(await refreshSnapshotPosition(dir, ID, checksum + 1, later)).toBe(false);
    expect(await refreshSnapshotPosition(dir, ID, checksum, later)).toBe(true);
    const read = await readSnapshot(dir, ID);
    if (read.status !== 'ok') throw new Error(JSON.stringify(read));
    expect(read.meta).toMatchObject(later);
    expect(read.snapshot.header).toEqual(fake().header);
    // A position longer than the room the header region keeps: the whole file must be written again.
    expect(await refreshSnapshotPosition(dir, ID, checksum, { position: `1:2:${'3,'.repeat(3000)}3`, takenAt: 1 })).toBe(false);
    expect(await refreshSnapshotPosition(dir, OTHER, checksum, later)).toBe(false);
  });

  it('lists the datasets with a file, removes temporary files another process left, and removes a file', async () => {
    await writeSnapshot(dir, ID, AT, 3, 1, fake());
    await writeSnapshot(dir, OTHER, AT, 3, 1, fake());
    writeFileSync(path.join(dir, `${ID}.snap.999999.abc.tmp`), 'half');
    writeFileSync(path.join(dir, 'notes.txt'), 'kept');
    expect((await listSnapshots(dir)).sort()).toEqual([ID, OTHER].sort());
    expect(readdirSync(dir).sort()).toEqual([`${ID}.snap`, `${OTHER}.snap`, 'notes.txt'].sort());
    await removeSnapshot(dir, ID);
    await removeSnapshot(dir, ID);
    expect(await listSnapshots(dir)).toEqual([OTHER]);
    expect(await listSnapshots(path.join(dir, 'absent'))).toEqual([]);
  });
});
