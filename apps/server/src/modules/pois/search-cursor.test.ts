import { describe, expect, it } from 'vitest';
import { createCursorCodec } from './search-cursor';

const codec = createCursorCodec('secret-0123456789');
const id = '0b7c4a52-6a4e-4b8e-9d0e-2f1a3b4c5d6e';
const point = { datasetIds: ['a', 'b'], point: { latitude: 35.68, longitude: 139.76, radius: 500 } };
const list = { datasetIds: ['a'], keyword: 'カフェ 東京' };

describe('search cursors', () => {
  it('round-trips a position, for the same filters written differently', () => {
    const c = codec.encode({ knn: 123.456789012345, id }, point);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(c, { ...point, datasetIds: ['b', 'a', 'b'] })).toEqual({ knn: 123.456789012345, id });
    // A keyword search is ranked (exact, prefix, other): its cursor carries the rank, a list's does not.
    const t = codec.encode({ ts: '2026-11-23 19:33:42.123456+00', id, rank: 1 }, list);
    expect(codec.decode(t, { datasetIds: ['a'], keyword: '東京　ｶﾌｪ' })).toEqual({ ts: '2026-11-23 19:33:42.123456+00', id, rank: 1 });
    const plain = { datasetIds: ['a'] };
    expect(codec.decode(codec.encode({ ts: '2026-11-23 19:33:42.123456+00', id }, plain), plain)).toEqual({ ts: '2026-11-23 19:33:42.123456+00', id });
    expect(codec.decode(codec.encode({ ts: '2026-11-23 19:33:42.123456+00', id }, list), list)).toBeUndefined();
    expect(codec.decode(codec.encode({ ts: '2026-11-23 19:33:42.123456+00', id, rank: 2 }, plain), plain)).toBeUndefined();
  });

  it('refuses a cursor of other filters, an altered one, another secret and garbage', () => {
    const c = codec.encode({ knn: 10, id }, point);
    expect(codec.decode(c, { ...point, point: { ...point.point, radius: 501 } })).toBeUndefined();
    expect(codec.decode(c, { datasetIds: ['a', 'b'] })).toBeUndefined();
    const [payload, mac] = c.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ d: 0, i: id })).toString('base64url');
    expect(codec.decode(`${forged}.${mac}`, point)).toBeUndefined();
    expect(codec.decode(`${payload}.${mac.slice(1)}A`, point)).toBeUndefined();
    expect(createCursorCodec('another-secret').decode(c, point)).toBeUndefined();
    for (const bad of ['', '.', 'abc', 'a.b.c', '%%%.%%%']) expect(codec.decode(bad, point)).toBeUndefined();
  });
});
